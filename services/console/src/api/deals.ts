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
  /** The member who owns the deal (a user id), if any. */
  assigned_to: string | null;
  lead_id: string | null;
  contact_id: string | null;
  /** `YYYY-MM-DD`. */
  expected_close_date: string | null;
  created_at: string;
  updated_at: string;
}

/** How many deals the board and the list ask for (the list's documented maximum is 1,000). */
export const DEALS_BOARD_LIMIT = 500;

/** The deals list's filters (`stage`, `assigned_to`, `lead_id`); an empty one is left out. */
export interface DealFilters {
  stage?: string;
  assigned_to?: string;
  lead_id?: string;
}

/** GET /api/crm/deals: newest first, `{ deals }` with no page (at most `limit`). */
export function fetchDeals(signal?: AbortSignal, filters: DealFilters = {}) {
  const params = new URLSearchParams({ limit: String(DEALS_BOARD_LIMIT) });
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  return api<{ deals: Deal[] }>(`/api/crm/deals?${params}`, { signal });
}

/** One deal (GET /api/crm/deals/:id). */
export function fetchDeal(id: string, signal?: AbortSignal) {
  return api<Envelope<{ deal: Deal }>>(`/api/crm/deals/${encodeURIComponent(id)}`, { signal });
}

/** What the deal form changes (PATCH takes any of a deal's fields, at least one). */
export interface DealChange {
  title?: string;
  value?: string;
  currency?: string;
  stage?: DealStage;
  assigned_to?: string | null;
  expected_close_date?: string | null;
}

/** PATCH /api/crm/deals/:id with the fields that changed. */
export async function updateDeal(id: string, change: DealChange): Promise<Deal> {
  const answer = await api<Envelope<{ deal: Deal }>>(`/api/crm/deals/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: change,
  });
  return answer.data.deal;
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
export function moveDeal(id: string, stage: DealStage): Promise<Deal> {
  return updateDeal(id, { stage });
}
