-- The lead list's search, walking the sort's index (libs/shared/src/pagination/walk-for-search.ts)
WITH walked AS MATERIALIZED ((
  select "crm_leads"."id" as "__id",
    (crm_leads.created_at)::text as "__key",
    "crm_leads"."search_text" LIKE lower($1) as "__match",
    row_number() OVER (ORDER BY crm_leads.created_at desc, "crm_leads"."id" desc) as "__n"
  from "crm_lead_search" as "crm_leads"
  where "crm_leads"."tenant_id" = $2
  order by crm_leads.created_at desc, "crm_leads"."id" desc
  limit $3
)),
hits AS MATERIALIZED (
  SELECT *
  FROM walked
  WHERE __match
  ORDER BY __n
  LIMIT $4
)
SELECT r.*,
  hits.__key,
  (
    SELECT count(*)
    FROM walked
  ) AS __walked,
  (
    SELECT count(*)
    FROM walked
    WHERE __match
  ) AS __matched
FROM hits
CROSS JOIN LATERAL ((
  select "id",
    "email",
    "first_name",
    "last_name",
    "phone",
    "status",
    "source",
    "custom_fields",
    "created_at",
    "updated_at"
  from "crm_lead_search" as "crm_leads"
  where "crm_leads"."tenant_id" = $5
    and "crm_leads"."id" = hits.__id
)) r
ORDER BY hits.__n
