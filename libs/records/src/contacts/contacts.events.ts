import type { EventInput } from '@crm/shared/events';

export const CONTACT_MODULE = 'contacts';
export const CONTACT_EVENT_TYPES = ['contact.created', 'contact.updated'] as const;
export type ContactEventType = (typeof CONTACT_EVENT_TYPES)[number];

/**
 * `data` of `contact.created` / `contact.updated`; the record is `{ module: 'contacts', id }`.
 * `source` names the writer (`storefront_a`, `mcp_ingest`, ...). A provider's contact carries
 * its email only; an ingested one also its phone and external id.
 */
export interface ContactEventData {
  email: string | null;
  source: string;
  phone?: string | null;
  external_id?: string | null;
}

export function contactEvent(
  tenantId: string,
  contact: { id: string; created: boolean },
  data: ContactEventData,
): EventInput {
  return {
    type: contact.created ? 'contact.created' : 'contact.updated',
    tenant_id: tenantId,
    record: { module: CONTACT_MODULE, id: contact.id },
    data: { ...data },
  };
}

/** `contact.deleted`, written when a contact is deleted through the API; `data` is empty. */
export function contactDeletedEvent(tenantId: string, id: string): EventInput {
  return {
    type: 'contact.deleted',
    tenant_id: tenantId,
    record: { module: CONTACT_MODULE, id },
    data: {},
  };
}
