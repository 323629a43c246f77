-- The lead import: one INSERT of a chunk's new leads (leads.repository.ts insertOrUpdate)
INSERT INTO crm_leads (id, tenant_id, email, first_name, last_name, phone, status, source, custom_fields)
SELECT r.id::uuid,
  $1::uuid,
  r.email,
  r.first_name,
  r.last_name,
  r.phone,
  r.status,
  r.source,
  r.custom_fields
FROM (
  SELECT $2::jsonb AS c
) AS p, ROWS FROM (
  jsonb_array_elements_text(p.c->'id'),
  jsonb_array_elements_text(p.c->'email'),
  jsonb_array_elements_text(p.c->'first_name'),
  jsonb_array_elements_text(p.c->'last_name'),
  jsonb_array_elements_text(p.c->'phone'),
  jsonb_array_elements_text(p.c->'status'),
  jsonb_array_elements_text(p.c->'source'),
  jsonb_array_elements(p.c->'custom_fields')
) AS r(id, email, first_name, last_name, phone, status, source, custom_fields)
