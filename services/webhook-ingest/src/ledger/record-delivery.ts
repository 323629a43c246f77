import type { IncomingHttpHeaders } from 'node:http';
import { ledgerHeaders } from '@crm/shared/inbound';
import {
  asTenant,
  withSystemScope,
  type Database,
  type InboundOutcome,
  type InboundVerification,
  type Trx,
} from '@crm/shared/db';
import type { Kysely } from 'kysely';
import {
  claimDelivery,
  recordFailure,
  recordOutcome,
  type LedgerValues,
} from './ledger.repository';

/**
 * One accepted delivery: verified, or accepted unverified where that is specified (a storefront
 * connection without a stored secret, messaging without an app secret).
 */
export interface Delivery {
  /** Ledger provider key: `billing`, `email`, `storefront_a`, `payments_stripe`, ... */
  provider: string;
  /** The provider's event or delivery id (or a digest of the body where it sends none). */
  deliveryId: string;
  eventType?: string | null;
  rawBody: Buffer;
  contentType?: string;
  verification: InboundVerification;
  /** The request's headers; the ledger keeps them redacted (ledgerHeaders). */
  headers?: IncomingHttpHeaders;
  /**
   * The tenant the delivery is routed to, when the receiver knows it before handling (the
   * storefront or payment connection it verified against): a failure is then recorded as that
   * tenant's, so the tenant sees it in its ledger and can re-process it.
   */
  tenantId?: string;
  /**
   * Set on a re-processing (stored-delivery.ts): the tenant that asked for it. The delivery must
   * still route to that tenant alone, or everything rolls back and nothing is recorded
   * (NotRoutedToTenant): a re-processing never writes into any other tenant, nor moves the
   * ledger row out of the asking tenant's ledger.
   */
  reprocessedFor?: string;
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
  /**
   * Said by a handler that routes a delivery by its content (the shared-secret providers:
   * billing, email, network, messaging, telephony), once, after resolving every tenant the
   * content routes to and before writing into any: all of them (none, one, several). When it
   * is exactly one, a failure after this point is recorded as that tenant's ledger row, so the
   * tenant sees it and can re-process it; a delivery spanning tenants keeps a row of no tenant,
   * so no tenant sees another's content. A re-processing throws NotRoutedToTenant here unless
   * the content routes to the asking tenant alone. (A group scope, record-deliveries.ts,
   * ignores it: a failing group is recorded delivery by delivery instead.)
   */
  routeTo(tenantIds: Iterable<string>): void;
}

/**
 * A re-processing whose delivery no longer routes to the tenant that asked for it alone (the
 * identifier it names was released, or is now another tenant's; the two are not told apart).
 * Thrown before the handler writes anything, or after it returns an outcome of another
 * tenant or of none; either way the transaction rolls back and the ledger row is left
 * exactly as it was.
 */
export class NotRoutedToTenant extends Error {
  constructor() {
    super('The delivery no longer routes to the tenant that asked to re-process it');
    this.name = 'NotRoutedToTenant';
  }
}

export type Recorded<T extends Outcome> =
  { duplicate: true } | { duplicate: false; ledgerId: string; result: T } | NotStored;

/**
 * A delivery that can never be stored as sent (see PermanentFailure): its writes rolled back,
 * the ledger keeps it as `failed` with the reason, and the receiver answers 2xx so the provider
 * stops retrying what would fail the same way every time.
 */
export interface NotStored {
  duplicate: false;
  ledgerId: string;
  /** Safe to answer the provider with: our own words, never a driver message. */
  notStored: string;
}

/**
 * Thrown by a handler, before it writes anything, for a verified delivery that cannot be stored
 * however often it is retried (a value outside its column's range): recordDelivery records it
 * as failed for good instead of rethrowing.
 */
export class PermanentFailure extends Error {
  constructor(
    message: string,
    /** The tenant the delivery belongs to, when known: the ledger row is then the tenant's. */
    readonly tenantId: string | null = null,
  ) {
    super(message);
    this.name = 'PermanentFailure';
  }
}

export const MAX_DETAIL = 500;

/**
 * Claims the delivery in the `inbound_events` ledger, runs `handle`, and records its outcome,
 * all in one transaction. A delivery id already recorded (and not failed) is a redelivery:
 * nothing runs and nothing new is written. A previously failed one is claimed again, so a
 * provider's retry can succeed. When `handle` throws, its writes roll back and the ledger
 * keeps the delivery as `failed` with the error's message; the error is rethrown, except for a
 * permanent failure (a PermanentFailure, or a Postgres data exception such as a numeric
 * overflow, which the same bytes would raise again on every retry): that is returned as
 * NotStored, so the receiver answers 2xx and the provider does not retry it forever.
 */
export async function recordDelivery<T extends Outcome>(
  db: Kysely<Database>,
  delivery: Delivery,
  handle: (scope: DeliveryScope) => Promise<T>,
): Promise<Recorded<T>> {
  const routing = new Routing(delivery.reprocessedFor);
  try {
    return await withSystemScope(db, async (trx) => {
      const ledgerId = await claimDelivery(trx, ledgerValues(delivery, 'failed'));
      if (!ledgerId) return { duplicate: true } as const;
      const result = await handle({
        trx,
        asTenant: (tenantId, fn) => asTenant(trx, tenantId, fn),
        routeTo: (tenantIds) => routing.routeTo(tenantIds),
      });
      routing.checkOutcome(result.tenantId);
      await recordOutcome(trx, ledgerId, {
        outcome: result.outcome,
        tenant_id: result.tenantId ?? null,
        detail: result.detail?.slice(0, MAX_DETAIL) ?? null,
      });
      return { duplicate: false, ledgerId, result } as const;
    });
  } catch (error) {
    if (error instanceof NotRoutedToTenant) throw error;
    const permanent = permanentFailureOf(error);
    const routed = routing.tenantId ?? delivery.tenantId;
    if (!permanent) {
      await keepFailure(db, delivery, errorMessage(error), routed).catch(() => undefined);
      throw error;
    }
    routing.checkOutcome(permanent.tenantId ?? routed);
    const ledgerId = await keepFailure(
      db,
      delivery,
      permanent.detail,
      permanent.tenantId ?? routed,
    );
    // No id: another attempt recorded the delivery as done meanwhile; this one is its duplicate.
    return ledgerId
      ? { duplicate: false, ledgerId, notStored: permanent.answer }
      : { duplicate: true };
  }
}

/**
 * What the handler said of the delivery's tenants (DeliveryScope.routeTo), and on a
 * re-processing the check that they are the asking tenant alone.
 */
class Routing {
  /** The one tenant the content routes to, when the handler said so. */
  tenantId: string | undefined;

  constructor(private readonly reprocessedFor: string | undefined) {}

  routeTo(tenantIds: Iterable<string>): void {
    const tenants = new Set(tenantIds);
    const [only] = tenants;
    if (this.reprocessedFor !== undefined && (tenants.size !== 1 || only !== this.reprocessedFor)) {
      throw new NotRoutedToTenant();
    }
    this.tenantId = tenants.size === 1 ? only : undefined;
  }

  /** A re-processing's outcome (or failure) must be the asking tenant's, not another's or none. */
  checkOutcome(tenantId: string | null | undefined): void {
    if (this.reprocessedFor !== undefined && tenantId !== this.reprocessedFor) {
      throw new NotRoutedToTenant();
    }
  }
}

interface Permanent {
  /** For the ledger. */
  detail: string;
  /** For the provider. */
  answer: string;
  tenantId: string | null;
}

/** Postgres SQLSTATE class 22, data exception: numeric or datetime overflow, bad values. */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

function permanentFailureOf(error: unknown): Permanent | undefined {
  if (error instanceof PermanentFailure) {
    return { detail: error.message, answer: error.message, tenantId: error.tenantId };
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && DATA_EXCEPTION.test(code)) {
    return {
      detail: `Not stored: ${errorMessage(error)} (SQLSTATE ${code})`,
      answer: 'A value in the delivery cannot be stored',
      tenantId: null,
    };
  }
  return undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A delivery's ledger columns, claimed as `outcome` (`failed` until its outcome is recorded). */
export function ledgerValues(delivery: Delivery, outcome: InboundOutcome): LedgerValues {
  return {
    provider: delivery.provider,
    delivery_id: delivery.deliveryId,
    event_type: delivery.eventType ?? null,
    content_type: delivery.contentType ?? null,
    // Postgres text cannot hold NUL; a body with one is kept with it escaped.
    raw_body: delivery.rawBody.toString('utf8').replaceAll('\u0000', '\\u0000'),
    headers: delivery.headers ? JSON.stringify(ledgerHeaders(delivery.headers)) : null,
    verification: delivery.verification,
    outcome,
  };
}

/**
 * Keeps the delivery as `failed` with `reason`, in a transaction of its own (the handler's
 * rolled back). Returns the ledger id, or undefined when the delivery is recorded as done.
 */
async function keepFailure(
  db: Kysely<Database>,
  delivery: Delivery,
  reason: string,
  tenantId: string | null = null,
): Promise<string | undefined> {
  const detail = reason.slice(0, MAX_DETAIL);
  return withSystemScope(db, (trx) =>
    recordFailure(trx, ledgerValues(delivery, 'failed'), detail, tenantId),
  );
}
