-- The lead list's search through the lead search index, when the walk finds too few (libs/shared/src/pagination/read-search-matches.ts)
WITH matched AS MATERIALIZED ((
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
    crm_leads.created_at as "__sort"
  from "crm_lead_search" as "crm_leads"
  where "crm_leads"."tenant_id" = $1
    and "crm_leads"."search_text" LIKE lower($2)
    and crm_leads.id IN (
      SELECT c.lead_id
      FROM crm_lead_search_candidates c
      WHERE c.search_text LIKE lower($3)
    )
  limit $4
))
SELECT m.*,
  c.n AS __total
FROM (
  SELECT count(*) AS n
  FROM matched
) c
LEFT JOIN LATERAL (
  SELECT *
  FROM matched
  ORDER BY __sort desc, "id" desc
  LIMIT $5
  OFFSET $6
) m ON true
ORDER BY m.__sort desc, "m"."id" desc
