import type { Trx } from '@crm/shared/db';
import { ingestResult, type IngestResult, type RecordError } from '../ingest-result';
import type { LeadResultItem } from './leads.schema';
import { upsertLeads } from './leads.repository';
import { normalizeLead, type LeadInput } from './normalize-lead';

/** The rows of a batch split into leads to store and the refused rows' errors. */
export function prepareLeads(rows: readonly unknown[]): {
  leads: LeadInput[];
  errors: RecordError[];
} {
  const leads: LeadInput[] = [];
  const errors: RecordError[] = [];
  rows.forEach((row, index) => {
    const result = normalizeLead(row);
    if (result.ok) leads.push(result.lead);
    else errors.push({ index, error: result.error });
  });
  return { leads, errors };
}

/**
 * A batch of lead import items stored in the caller's tenant
 * transaction, as POST /api/v1/import/leads does it: each row validated and normalised, the
 * valid ones upserted by email (with `lead.created` / `lead.updated` events), the others
 * reported as `{ index, error }`. `data` has the stored lead of every valid row, in order.
 * The one implementation behind the import route and MCP's ingest_leads.
 */
export async function ingestLeads(
  trx: Trx,
  tenantId: string,
  rows: readonly unknown[],
  defaults: { source?: string } = {},
): Promise<IngestResult<LeadResultItem>> {
  const { leads, errors } = prepareLeads(rows);
  const stored = leads.length > 0 ? await upsertLeads(trx, tenantId, leads, defaults) : [];
  const data = stored.map(({ id, email, status, source }) => ({ id, email, status, source }));
  return ingestResult(data, errors);
}
