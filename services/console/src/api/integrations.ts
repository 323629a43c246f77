import { api, type Envelope } from './client';
import type { CursorPage } from './leads';
import type { NumberedPage } from './products';

/** GET /api/integrations/receivers: what a provider's dashboard needs, per kind. */
export interface ReceiverGuide {
  kind: string;
  name: string;
  /** The full receiver URL (PUBLIC_BASE_URL plus the path; payments: a template). */
  url: string;
  /** Which secret signs the deliveries (never its value). */
  secret: string;
  headers: { name: string; carries: string }[];
  /** Platform-wide secrets: whether the operator set it; null for per-connection secrets. */
  platformSecretSet: boolean | null;
}

export function fetchReceivers(signal?: AbortSignal) {
  return api<Envelope<{ receivers: ReceiverGuide[] }>>('/api/integrations/receivers', { signal });
}

/** The integration resources under /api/integrations (docs/integrations.md). */
export type IntegrationPath =
  | 'storefront-connections'
  | 'payment-connections'
  | 'network-accounts'
  | 'messaging-accounts'
  | 'telephony-numbers';

/**
 * A row of any of them: its identifier columns differ, the rest is shared. Secrets are never
 * answered: only `hasWebhookSecret`.
 */
export interface IntegrationRow {
  id: string;
  name: string | null;
  created_at: string;
  status?: 'pending' | 'proven' | 'unverified';
  verificationUrl?: string;
  webhookUrl?: string;
  hasWebhookSecret?: boolean;
  [column: string]: unknown;
}

export function fetchIntegrationRows(path: IntegrationPath, signal?: AbortSignal) {
  const params = new URLSearchParams({ pageSize: '100', sortBy: 'created_at', sortOrder: 'desc' });
  return api<NumberedPage<IntegrationRow>>(`/api/integrations/${path}?${params}`, { signal });
}

export function createIntegrationRow(path: IntegrationPath, body: Record<string, unknown>) {
  return api<Envelope<Record<string, IntegrationRow>>>(`/api/integrations/${path}`, {
    method: 'POST',
    body,
  });
}

export function changeIntegrationRow(
  path: IntegrationPath,
  id: string,
  body: Record<string, unknown>,
) {
  return api<Envelope<Record<string, IntegrationRow>>>(
    `/api/integrations/${path}/${encodeURIComponent(id)}`,
    { method: 'PATCH', body },
  );
}

export function deleteIntegrationRow(path: IntegrationPath, id: string) {
  return api<Envelope<{ id: string }>>(`/api/integrations/${path}/${encodeURIComponent(id)}`, {
    method: 'DELETE',
  });
}

export const INBOUND_OUTCOMES = ['processed', 'ignored', 'unmatched', 'failed'] as const;

/** A row of the inbound delivery ledger as the list shows it (no payload). */
export interface InboundEvent {
  id: string;
  provider: string;
  delivery_id: string;
  event_type: string | null;
  content_type: string | null;
  verification: 'verified' | 'unverified' | 'skipped';
  outcome: (typeof INBOUND_OUTCOMES)[number];
  detail: string | null;
  attempts: number;
  received_at: string;
  processed_at: string | null;
}

/**
 * The audit view: the raw payload and the headers as stored (secret-like values redacted);
 * both null once retention has removed them (the row, its outcome and dedup key stay longer).
 */
export interface InboundEventDetail extends InboundEvent {
  raw_body: string | null;
  headers: Record<string, string> | null;
}

export interface DeliveryQuery {
  provider: string;
  outcome: string;
  /** ISO 8601 instants, or '' for no bound. */
  from: string;
  to: string;
}

export const DELIVERIES_PAGE_SIZE = 50;

/** One page of the ledger, newest first: the first without a cursor, then by `nextCursor`. */
export function fetchDeliveriesPage(
  query: DeliveryQuery,
  cursor: string | null,
  signal?: AbortSignal,
) {
  const params = new URLSearchParams({ pageSize: String(DELIVERIES_PAGE_SIZE) });
  for (const key of ['provider', 'outcome', 'from', 'to'] as const) {
    if (query[key]) params.set(key, query[key]);
  }
  if (cursor) params.set('cursor', cursor);
  return api<CursorPage<InboundEvent>>(`/api/integrations/inbound-events?${params}`, { signal });
}

export function fetchDelivery(id: string, signal?: AbortSignal) {
  return api<Envelope<{ event: InboundEventDetail }>>(
    `/api/integrations/inbound-events/${encodeURIComponent(id)}`,
    { signal },
  );
}

export function reprocessDelivery(id: string) {
  return api<Envelope<{ event: InboundEventDetail; reprocessed: boolean }>>(
    `/api/integrations/inbound-events/${encodeURIComponent(id)}/reprocess`,
    { method: 'POST' },
  );
}

/**
 * A delivery the API re-processes: one that failed after its signature was verified, of any
 * provider (a shared-secret provider's is routed again by its content, and refused with a 409
 * the panel shows when that no longer routes it to this workspace).
 */
export function isReprocessable(event: InboundEvent): boolean {
  return event.outcome === 'failed' && event.verification === 'verified';
}
