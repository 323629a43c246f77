import { api, type Envelope } from './client';

/** The pipeline's stages, in order (crm_deals.stage; the deals list's `stage` filter). */
export const DEAL_STAGES = ['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost'] as const;
export type DealStage = (typeof DEAL_STAGES)[number];

export interface Deal {
  id: string;
  title: string;
  /** numeric(16,2), as the API answers it: a decimal string. */
  value: string;
  currency: string;
  stage: DealStage;
  created_at: string;
  updated_at: string;
}

/** How many deals the board asks for (the list's documented maximum is 1,000). */
export const DEALS_BOARD_LIMIT = 500;

export function fetchDeals(signal?: AbortSignal) {
  return api<{ deals: Deal[] }>(`/api/crm/deals?limit=${DEALS_BOARD_LIMIT}`, { signal });
}

export interface NewDeal {
  title: string;
  value: string;
  stage: DealStage;
}

export function createDeal(deal: NewDeal) {
  return api<Envelope<{ deal: Deal }>>('/api/crm/deals', { method: 'POST', body: deal });
}

/** PATCH /api/crm/deals/:id with the new stage; a failure is an ApiError (with Retry-After). */
export async function moveDeal(id: string, stage: DealStage): Promise<Deal> {
  const answer = await api<Envelope<{ deal: Deal }>>(`/api/crm/deals/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: { stage },
  });
  return answer.data.deal;
}
