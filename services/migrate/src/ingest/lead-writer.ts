import {
  findLeadsByIdsOrEmails,
  LeadChangedMeanwhile,
  prepareLeads,
  writeLeadsById,
  type LeadInput,
  type LeadRecord,
  type RecordError,
} from '@crm/records';
import type { ChunkOutcome, SourceRecord, StoredRecord, WriteContext } from './writer-contract';
import { findMappedIds, findSourceIdsOf, retryInSavepoint } from './migration-records.repository';

const ENTITY = 'leads';
/** Another transaction took one of the emails, or deleted a mapped lead: read again, thrice. */
const ATTEMPTS = 3;
const raced = (err: unknown) =>
  err instanceof LeadChangedMeanwhile || (err as { code?: unknown }).code === '23505';

interface Candidate {
  /** The last record of this source id in the request; the earlier ones are superseded. */
  record: SourceRecord;
  lead: LeadInput;
  /** Positions of every record of this source id. */
  indexes: number[];
}

/**
 * Leads by the mapping of their source id, like deals and activities, with their email kept
 * unique per tenant (docs/migrate.md, Leads):
 *
 * - a source id migrated before updates its lead, email included; an email another lead of the
 *   tenant holds is that record's error and nothing of it is written;
 * - a new source id creates a lead, or adopts the lead that holds its email when that lead was
 *   not migrated from this source (a lead from a form or an import); one migrated from this
 *   source under another id is that record's error;
 * - a mapped lead deleted since is created again (or adopts the holder of its email).
 *
 * Which email is free is judged on the leads as they were before the request (and on the
 * emails earlier records of the request took), so a request that moves one lead onto the email
 * another lead leaves in the same request refuses that record; sending it again succeeds.
 * Set-based for the whole request: three reads (mappings, leads by id or email, the source ids
 * of the leads holding the emails), then one UPDATE, one INSERT and one outbox write.
 */
export async function writeLeadsBySourceId(
  ctx: WriteContext,
  records: SourceRecord[],
): Promise<ChunkOutcome> {
  const prepared = prepareLeads(records.map((r) => r.fields));
  const errors: RecordError[] = prepared.errors.map((e) => ({
    index: records[e.index].index,
    error: e.error,
  }));
  const refused = new Set(prepared.errors.map((e) => e.index));
  const bySourceId = new Map<string, Candidate>();
  records
    .filter((_, position) => !refused.has(position))
    .forEach((record, i) => {
      const earlier = bySourceId.get(record.external_id);
      bySourceId.delete(record.external_id);
      bySourceId.set(record.external_id, {
        record,
        lead: prepared.leads[i],
        indexes: [...(earlier?.indexes ?? []), record.index],
      });
    });
  const candidates = [...bySourceId.values()];
  if (candidates.length === 0) return { stored: [], errors };

  const planned = await retryInSavepoint(ctx.trx, ATTEMPTS, raced, () =>
    planAndWrite(ctx, candidates),
  );
  return { stored: planned.stored, errors: [...errors, ...planned.errors] };
}

async function planAndWrite(
  { trx, tenantId, sourceSystem }: WriteContext,
  candidates: Candidate[],
): Promise<ChunkOutcome> {
  const mapped = await findMappedIds(
    trx,
    tenantId,
    sourceSystem,
    ENTITY,
    candidates.map((c) => c.record.external_id),
  );
  const leads = await findLeadsByIdsOrEmails(
    trx,
    tenantId,
    [...mapped.values()],
    candidates.map((c) => c.lead.email),
  );
  const byId = new Map(leads.map((l) => [l.id, l]));
  const byEmail = new Map(leads.map((l) => [l.email, l]));
  const holders = candidates.flatMap((c) => byEmail.get(c.lead.email)?.id ?? []);
  const holderSourceIds = await findSourceIdsOf(trx, tenantId, sourceSystem, ENTITY, holders);

  const errors: RecordError[] = [];
  let refusedNow = false;
  const refuse = (c: Candidate, error: string) => {
    refusedNow = true;
    for (const index of c.indexes) errors.push({ index, error });
  };
  /** Emails earlier records of this request took, and by which source id. */
  const taken = new Map<string, string>();
  const writes: Array<{ candidate: Candidate; lead: LeadInput; base?: LeadRecord }> = [];
  for (const c of candidates) {
    refusedNow = false;
    const sourceId = c.record.external_id;
    const email = c.lead.email;
    const mappedId = mapped.get(sourceId);
    const target = mappedId === undefined ? undefined : byId.get(mappedId);
    const holder = byEmail.get(email);
    const takenBy = taken.get(email);
    if (takenBy !== undefined) {
      refuse(
        c,
        `email "${email}" is also given to external_id "${takenBy}" in this request; nothing was stored`,
      );
    } else if (target) {
      if (holder && holder.id !== target.id) {
        refuse(
          c,
          `email "${email}" belongs to another lead of this tenant; the lead migrated as external_id "${sourceId}" was left unchanged`,
        );
      } else {
        writes.push({ candidate: c, lead: c.lead, base: target });
      }
    } else if (holder) {
      const holderSourceId = holderSourceIds.get(holder.id);
      if (holderSourceId !== undefined && holderSourceId !== sourceId) {
        refuse(
          c,
          `email "${email}" belongs to the lead migrated from ${sourceSystem} as external_id "${holderSourceId}"; nothing was stored`,
        );
      } else {
        writes.push({ candidate: c, lead: c.lead, base: holder });
      }
    } else {
      writes.push({ candidate: c, lead: c.lead });
    }
    if (!refusedNow) taken.set(email, sourceId);
  }

  const written = await writeLeadsById(trx, tenantId, writes);
  const stored: StoredRecord[] = writes.flatMap(({ candidate }, i) =>
    candidate.indexes.map((index) => ({
      index,
      external_id: candidate.record.external_id,
      record_id: written[i].id,
      created: written[i].created && index === candidate.record.index,
    })),
  );
  return { stored, errors };
}
