import type { PaymentProvider } from '@crm/shared/db';
import type { Verification } from '../../receivers/verification';

export type PaymentKind = 'payment.succeeded' | 'payment.failed' | 'payment.refunded';

/** One stored payment activity, the same shape whichever provider sent it. */
export interface NormalizedPayment {
  externalEventId: string;
  kind: PaymentKind;
  /** Major units as a decimal string (`'12.34'`), or null when the event carries none. */
  amount: string | null;
  /** ISO 4217, upper case. */
  currency: string | null;
  /** Lower-cased; links the payment to the tenant's contact with that email. */
  email: string | null;
}

/** What a provider's normaliser reads from a verified delivery. */
export interface PaymentEvent {
  /** The provider's id for this event: the ledger key (per connection) and the stored id. */
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
  /** `body` is the parsed JSON of the verified raw body; a body that is no event is a 400. */
  normalize(body: unknown, rawBody: Buffer, headers: Headers): PaymentEvent;
}

export type { PaymentProvider };
