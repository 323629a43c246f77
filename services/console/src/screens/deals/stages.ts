import type { DealStage } from '../../api/deals';

const LABELS: Record<DealStage, string> = {
  lead: 'Lead',
  qualified: 'Qualified',
  proposal: 'Proposal',
  negotiation: 'Negotiation',
  won: 'Won',
  lost: 'Lost',
};

export const stageLabel = (stage: DealStage) => LABELS[stage];

/** A deal's value in its currency ("$1,200.00"); the raw text if the browser cannot format it. */
export function money(value: string, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(Number(value));
  } catch {
    return `${value} ${currency}`;
  }
}
