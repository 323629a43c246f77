-- The lead import: the stored leads of a chunk, by email (libs/records leads.repository.ts existingLeads)
select "id",
  "email",
  "first_name",
  "last_name",
  "phone",
  "status",
  "source",
  "custom_fields"
from "crm_leads"
where "tenant_id" = $1
  and "email" = ANY(ARRAY(
    SELECT json_array_elements_text($2::json)
  ))
