-- The network receiver: one INSERT of a tenant's activities from a JSON recordset (services/webhook-ingest/src/providers/network/network.repository.ts insertNetworkEvents)
INSERT INTO network_events (tenant_id, account_id, external_event_id, kind, event_type, actor, occurred_at, payload)
SELECT $1::uuid,
  r.account_id,
  r.external_event_id,
  r.kind,
  r.event_type,
  r.actor,
  r.occurred_at,
  r.payload
FROM ROWS FROM (
  json_to_recordset($2::json) AS (account_id uuid, external_event_id text, kind text, event_type text, actor jsonb, occurred_at timestamptz, payload jsonb)
) WITH ORDINALITY AS r(account_id, external_event_id, kind, event_type, actor, occurred_at, payload, n)
ORDER BY r.n
-- A redelivered event (same partner id for the account) is skipped, also within a batch.
ON CONFLICT (account_id, external_event_id)
WHERE external_event_id IS NOT NULL
DO NOTHING
RETURNING id,
  account_id,
  external_event_id,
  kind,
  event_type,
  occurred_at
