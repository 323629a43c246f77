import { sql } from 'kysely';
import {
  SYSTEM_ROLE,
  TENANT_ROLE,
  withSystemScope,
  type Database,
  type InboundOutcome,
  type InboundVerification,
  type Trx,
} from '@crm/shared/db';
import type { Kysely } from 'kysely';

/** One accepted (verified, or accepted unverified where SPEC.md allows) delivery. */
export interface Delivery {
  /** Ledger provider key: `billing`, `email`, `storefront_a`, `payments_stripe`, ... */
  provider: string;
  /** The provider's event or delivery id (or a digest of the body where it sends none). */
  deliveryId: string;
  eventType?: string | null;
  rawBody: Buffer;
  contentType?: string;
  verification: InboundVerification;
}

/** What a handler did with a delivery; recorded in the ledger. */
export interface Outcome {
  outcome: InboundOutcome;
  /** The resolved tenant; absent when the delivery matched none (`unmatched`). */
  tenantId?: string | null;
  /** A short human note for the ledger (never a secret): why ignored, what was stored. */
  detail?: string;
}

/**
 * The transaction a handler runs in: the system role (so the named cross-tenant lookups in
 * tenancy/ work on `trx`), and `asTenant` to do the tenant's writes under row-level security
 * in the same transaction, so the ledger row, the records and their outbox events commit or
 * roll back together.
 */
export interface DeliveryScope {
  trx: Trx;
  asTenant<T>(tenantId: string, fn: (trx: Trx) => Promise<T>): Promise<T>;
}

export type Recorded<T extends Outcome> =
  { duplicate: true } | { duplicate: false; ledgerId: string; result: T };

const MAX_DETAIL = 500;

/**
 * Claims the delivery in the `inbound_events` ledger, runs `handle`, and records its outcome,
 * all in one transaction. A delivery id already recorded (and not failed) is a redelivery:
 * nothing runs and nothing new is written. A previously failed one is claimed again, so a
 * provider's retry can succeed. When `handle` throws, its writes roll back and the ledger
 * keeps the delivery as `failed` with the error's message; the error is rethrown.
 */
export async function recordDelivery<T extends Outcome>(
  db: Kysely<Database>,
  delivery: Delivery,
  handle: (scope: DeliveryScope) => Promise<T>,
): Promise<Recorded<T>> {
  try {
    return await withSystemScope(db, async (trx) => {
      const ledgerId = await claim(trx, delivery);
      if (!ledgerId) return { duplicate: true } as const;
      const result = await handle({ trx, asTenant: (tenantId, fn) => asTenant(trx, tenantId, fn) });
      await trx
        .updateTable('inbound_events')
        .set({
          outcome: result.outcome,
          tenant_id: result.tenantId ?? null,
          detail: result.detail?.slice(0, MAX_DETAIL) ?? null,
          processed_at: new Date(),
        })
        .where('id', '=', ledgerId)
        .execute();
      return { duplicate: false, ledgerId, result } as const;
    });
  } catch (error) {
    await recordFailure(db, delivery, error).catch(() => undefined);
    throw error;
  }
}

/** INSERT, or re-claim a failed row; undefined when the delivery is already recorded. */
async function claim(trx: Trx, delivery: Delivery): Promise<string | undefined> {
  const row = await trx
    .insertInto('inbound_events')
    .values(ledgerValues(delivery, 'failed'))
    .onConflict((oc) =>
      oc
        .columns(['provider', 'delivery_id'])
        .doUpdateSet((eb) => ({
          attempts: sql`${eb.ref('inbound_events.attempts')} + 1`,
          raw_body: eb.ref('excluded.raw_body'),
          verification: eb.ref('excluded.verification'),
          received_at: sql`now()`,
        }))
        .where('inbound_events.outcome', '=', 'failed'),
    )
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

function ledgerValues(delivery: Delivery, outcome: InboundOutcome) {
  return {
    provider: delivery.provider,
    delivery_id: delivery.deliveryId,
    event_type: delivery.eventType ?? null,
    content_type: delivery.contentType ?? null,
    // Postgres text cannot hold NUL; a body with one is kept with it escaped.
    raw_body: delivery.rawBody.toString('utf8').replaceAll('\u0000', '\\u0000'),
    verification: delivery.verification,
    outcome,
  };
}

async function recordFailure(
  db: Kysely<Database>,
  delivery: Delivery,
  error: unknown,
): Promise<void> {
  const detail = (error instanceof Error ? error.message : String(error)).slice(0, MAX_DETAIL);
  await withSystemScope(db, (trx) =>
    trx
      .insertInto('inbound_events')
      .values({ ...ledgerValues(delivery, 'failed'), detail, processed_at: new Date() })
      .onConflict((oc) =>
        oc
          .columns(['provider', 'delivery_id'])
          .doUpdateSet({ detail, processed_at: new Date() })
          .where('inbound_events.outcome', '=', 'failed'),
      )
      .execute(),
  );
}

/**
 * Runs `fn` as the tenant role with `app.tenant_id` set, inside the delivery's transaction,
 * then returns to the system role. SET LOCAL lasts until commit, so nothing leaks to the pool.
 */
async function asTenant<T>(trx: Trx, tenantId: string, fn: (trx: Trx) => Promise<T>): Promise<T> {
  await sql`SELECT set_config('app.tenant_id', ${tenantId}, true)`.execute(trx);
  await sql.raw(`SET LOCAL ROLE ${TENANT_ROLE}`).execute(trx);
  const result = await fn(trx);
  await sql.raw(`SET LOCAL ROLE ${SYSTEM_ROLE}`).execute(trx);
  return result;
}
