-- The lead import when raced: INSERT ... ON CONFLICT of a chunk (leads.repository.ts upsertWithConflicts)
INSERT INTO crm_leads (tenant_id, email, first_name, last_name, phone, status, source, custom_fields)
SELECT $1::uuid,
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
ON CONFLICT (tenant_id, email)
DO UPDATE SET first_name = EXCLUDED.first_name,
  last_name = EXCLUDED.last_name,
  phone = EXCLUDED.phone,
  status = EXCLUDED.status,
  source = EXCLUDED.source,
  custom_fields = EXCLUDED.custom_fields,
  updated_at = now()
RETURNING id,
  email,
  status,
  source,
  (xmax = 0) AS created
