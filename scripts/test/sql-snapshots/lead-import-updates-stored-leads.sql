-- The lead import: one UPDATE of a chunk's stored leads (leads.repository.ts insertOrUpdate)
UPDATE crm_leads AS l
SET first_name = r.first_name,
  last_name = r.last_name,
  phone = r.phone,
  status = r.status,
  source = r.source,
  custom_fields = r.custom_fields,
  updated_at = now()
FROM (
  SELECT $1::jsonb AS c
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
WHERE l.tenant_id = $2::uuid
  AND l.id = r.id::uuid
  AND l.email = r.email
