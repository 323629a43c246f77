-- The lead list, first page by created_at, with its capped count (libs/shared/src/pagination/keyset.ts)
select "id",
  "email",
  "first_name",
  "last_name",
  "phone",
  "status",
  "source",
  "custom_fields",
  "created_at",
  "updated_at",
  (crm_leads.created_at)::text as "__key",
  (
    SELECT count(*)
    FROM ((
      select 1 as "one"
      from "crm_leads"
      where "crm_leads"."tenant_id" = $1
      order by crm_leads.created_at desc
      limit $2
    )) AS counted
  ) as "__total"
from "crm_leads"
where "crm_leads"."tenant_id" = $3
order by crm_leads.created_at desc, "crm_leads"."id" desc
limit $4
offset $5
