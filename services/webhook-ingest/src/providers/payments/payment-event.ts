import type { PaymentProvider } from '@crm/shared/db';
import type { Verification } from '@crm/shared/inbound';

export type PaymentKind = 'payment.succeeded' | 'payment.failed' | 'payment.refunded';

/** One stored payment activity, the same shape whichever provider sent it. */
export interface NormalizedPayment {
  externalEventId: string;
  kind: PaymentKind;
  /**
   * The provider's own id of what this row records (the payment, the refund), for its `kind`:
   * one row per id, whichever event or delivery carried it. Null where one payment may
   * legitimately produce several rows of that kind (repeated failures): the event id decides.
   */
  objectId: string | null;
  /** Major units as a decimal string (`'12.34'`), or null when the event carries none. */
  amount: string | null;
  /** Why the amount the event carries cannot be stored; then nothing of it is stored. */
  unstorableAmount?: string;
  /** ISO 4217, upper case. */
  currency: string | null;
  /** Lower-cased; links the payment to the tenant's contact with that email. */
  email: string | null;
}

/** What a provider's normaliser reads from a verified delivery. */
export interface PaymentEvent {
  /**
   * The event's key, always read from the signed body (never an unsigned header): the ledger
   * key (per connection) and the stored `external_event_id`.
   */
  eventId: string;
  eventType: string;
  /** null: a type we do not store (acknowledged, ledger outcome `ignored`). */
  payment: NormalizedPayment | null;
  /** Why a known type was not stored (for the ledger), e.g. a refund not yet approved. */
  ignoredReason?: string;
}

type Headers = Record<string, string | string[] | undefined>;

/** One payment provider: a pure signature check and a pure normaliser of its events. */
export interface PaymentProviderModule {
  verify(rawBody: Buffer, headers: Headers, secret: string, now: Date): Verification;
  /**
   * `body` is the parsed JSON of the verified raw body; a body that is no event is a 400. No
   * headers: the event's key must come from what the signature covers.
   */
  normalize(body: unknown, rawBody: Buffer): PaymentEvent;
}

export type { PaymentProvider };
