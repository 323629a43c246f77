import { sql, type Kysely } from 'kysely';

/**
 * Payments recorded once per payment, not once per delivery. A payment row
 * was unique only per (connection, event id), and Razorpay's event id came from an unsigned
 * header: a genuine signed body re-sent with another id stored the payment again. Besides the
 * event key (now always read from the signed body), each row keeps the provider's id of what
 * it records (`provider_object_id`: the PaymentIntent, Razorpay payment or refund, Paddle
 * transaction or adjustment, Lemon Squeezy order and refunded total), unique per tenant,
 * provider and kind, so another event or delivery about the same payment stores nothing.
 *
 * Existing rows are backfilled from their stored payload with the same rule the receivers use
 * (services/webhook-ingest/src/providers/payments), so a provider's retry of an event stored
 * before this migration is caught too. Existing duplicates are kept, not deleted (payment
 * history, whose events were already published): only the oldest row of each object gets the
 * id, the others keep null, which the partial index ignores, so creating it cannot fail.
 * payment_events forces row-level security; the backfill runs with it lifted for the owner
 * inside this transaction (a non-superuser owner would otherwise see no rows).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE payment_events ADD COLUMN provider_object_id text
    CHECK (length(provider_object_id) BETWEEN 1 AND 500)`.execute(db);

  await sql`ALTER TABLE payment_events NO FORCE ROW LEVEL SECURITY`.execute(db);
  await sql`WITH derived AS (
      SELECT id, tenant_id, provider, kind, created_at, CASE
        WHEN provider = 'stripe' AND kind = 'payment.succeeded'
          THEN payload #>> '{data,object,id}'
        WHEN provider = 'stripe' AND kind = 'payment.refunded'
          THEN (payload #>> '{data,object,id}') || ':' || (payload #>> '{data,object,amount_refunded}')
        WHEN provider = 'razorpay' AND kind IN ('payment.succeeded', 'payment.failed')
          THEN payload #>> '{payload,payment,entity,id}'
        WHEN provider = 'razorpay' AND kind = 'payment.refunded'
          THEN payload #>> '{payload,refund,entity,id}'
        WHEN provider = 'paddle' AND kind IN ('payment.succeeded', 'payment.refunded')
          THEN payload #>> '{data,id}'
        WHEN provider = 'lemonsqueezy' AND kind IN ('payment.succeeded', 'payment.refunded')
          THEN COALESCE(payload #>> '{data,type}', 'object') || ':' || (payload #>> '{data,id}')
            || CASE WHEN kind = 'payment.refunded'
                 THEN COALESCE(':' || (payload #>> '{data,attributes,refunded_amount}'), '')
                 ELSE '' END
      END AS object_id
      FROM payment_events
    ), ranked AS (
      SELECT id, object_id, row_number() OVER (
        PARTITION BY tenant_id, provider, kind, object_id ORDER BY created_at, id) AS n
      FROM derived
      WHERE object_id IS NOT NULL AND length(object_id) BETWEEN 1 AND 500
    )
    UPDATE payment_events p SET provider_object_id = ranked.object_id
      FROM ranked WHERE p.id = ranked.id AND ranked.n = 1`.execute(db);
  await sql`ALTER TABLE payment_events FORCE ROW LEVEL SECURITY`.execute(db);

  await sql`CREATE UNIQUE INDEX payment_events_provider_object
    ON payment_events (tenant_id, provider, kind, provider_object_id)
    WHERE provider_object_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS payment_events_provider_object`.execute(db);
  await sql`ALTER TABLE payment_events DROP COLUMN IF EXISTS provider_object_id`.execute(db);
}
