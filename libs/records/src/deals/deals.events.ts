import type { EventInput } from '@crm/shared/events';

export const DEAL_MODULE = 'deals';
export const DEAL_EVENT_TYPES = [
  'deal.created',
  'deal.updated',
  'deal.stage_changed',
  'deal.deleted',
] as const;

interface DealSummary {
  id: string;
  title: string;
  value: string;
  currency: string;
  stage: string;
}

const record = (id: string) => ({ module: DEAL_MODULE, id });
const summary = (deal: DealSummary) => ({
  title: deal.title,
  value: deal.value,
  currency: deal.currency,
  stage: deal.stage,
});

/** A deal was created (the API's POST, a migration). */
export function dealCreatedEvent(tenantId: string, deal: DealSummary): EventInput {
  return {
    type: 'deal.created',
    tenant_id: tenantId,
    record: record(deal.id),
    data: summary(deal),
  };
}

/** A migration re-ran over a deal it had created before. */
export function dealUpdatedEvent(tenantId: string, deal: DealSummary): EventInput {
  return {
    type: 'deal.updated',
    tenant_id: tenantId,
    record: record(deal.id),
    data: summary(deal),
  };
}

export function dealStageChangedEvent(
  tenantId: string,
  id: string,
  change: { from: string; to: string },
): EventInput {
  return { type: 'deal.stage_changed', tenant_id: tenantId, record: record(id), data: change };
}

export function dealDeletedEvent(tenantId: string, id: string): EventInput {
  return { type: 'deal.deleted', tenant_id: tenantId, record: record(id), data: {} };
}
