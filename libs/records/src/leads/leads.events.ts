import type { EventInput } from '@crm/shared/events';

export const LEAD_MODULE = 'leads';
export const LEAD_EVENT_TYPES = ['lead.created', 'lead.updated', 'lead.deleted'] as const;
export type LeadEventType = (typeof LEAD_EVENT_TYPES)[number];

/** `data` of `lead.created` / `lead.updated` / `lead.deleted`; the record is `{ module: 'leads', id }`. */
export interface LeadEventData {
  email: string;
  status: string;
  source: string;
}

/** The events of stored leads, one per lead, in their order. */
export function leadEvents(
  tenantId: string,
  leads: ReadonlyArray<{
    id: string;
    email: string;
    status: string;
    source: string;
    created: boolean;
  }>,
): EventInput[] {
  return leads.map((lead) => ({
    type: lead.created ? 'lead.created' : 'lead.updated',
    tenant_id: tenantId,
    record: { module: LEAD_MODULE, id: lead.id },
    data: { email: lead.email, status: lead.status, source: lead.source } satisfies LeadEventData,
  }));
}

/** The event of one lead created, changed or deleted through the lead routes. */
export function leadEvent(
  type: LeadEventType,
  tenantId: string,
  lead: { id: string; email: string; status: string; source: string },
): EventInput {
  return {
    type,
    tenant_id: tenantId,
    record: { module: LEAD_MODULE, id: lead.id },
    data: { email: lead.email, status: lead.status, source: lead.source } satisfies LeadEventData,
  };
}
