import { writeEvents } from '@crm/shared/events';
import {
  dealCreatedEvent,
  dealInputSchema,
  dealUpdatedEvent,
  insertDeals,
  updateDealsById,
  type DealRow,
  type RecordError,
} from '@crm/records';
import { z } from 'zod';
import type { ChunkOutcome, SourceRecord, StoredRecord, WriteContext } from './entity-writers';
import { MAX_EXTERNAL_ID } from './ingest.schema';
import { findMappedIds } from './migration-records.repository';

const sourceRef = (field: string) =>
  z
    .string({ error: `${field} must be the source id of a record migrated before` })
    .trim()
    .min(1)
    .max(MAX_EXTERNAL_ID)
    .optional();

/**
 * A migrated deal: the API's deal fields, except that it points at its lead and contact by
 * their ids in the source system (`lead_external_id`, `contact_external_id`: records migrated
 * from the same source before), and has no owner (users are not migrated).
 */
export const migratedDealSchema = dealInputSchema
  .omit({ assigned_to: true, lead_id: true, contact_id: true })
  .extend({
    lead_external_id: sourceRef('lead_external_id'),
    contact_external_id: sourceRef('contact_external_id'),
  });

interface Parsed {
  record: SourceRecord;
  deal: z.infer<typeof migratedDealSchema>;
}

/**
 * Deals have no natural key, so the mapping is the key: a source id migrated before updates
 * its deal (one UPDATE for the chunk), a new one inserts (one INSERT for the chunk), with
 * `deal.created` / `deal.updated` events in one outbox write. A source id twice in a chunk
 * keeps its last record.
 */
export async function writeDeals(
  ctx: WriteContext,
  records: SourceRecord[],
): Promise<ChunkOutcome> {
  const { trx, tenantId, sourceSystem } = ctx;
  const errors: RecordError[] = [];
  const byExternalId = new Map<string, Parsed>();
  for (const record of records) {
    const parsed = migratedDealSchema.safeParse(record.fields);
    if (!parsed.success)
      errors.push({ index: record.index, error: parsed.error.issues[0].message });
    else byExternalId.set(record.external_id, { record, deal: parsed.data });
  }
  const parsed = [...byExternalId.values()];
  const refs = (key: 'lead_external_id' | 'contact_external_id') =>
    parsed.flatMap((p) => (p.deal[key] ? [p.deal[key]] : []));
  const [existing, leads, contacts] = await Promise.all([
    findMappedIds(trx, tenantId, sourceSystem, 'deals', [...byExternalId.keys()]),
    findMappedIds(trx, tenantId, sourceSystem, 'leads', refs('lead_external_id')),
    findMappedIds(trx, tenantId, sourceSystem, 'contacts', refs('contact_external_id')),
  ]);

  const ready: Array<{ record: SourceRecord; row: DealRow }> = [];
  for (const { record, deal } of parsed) {
    const { lead_external_id, contact_external_id, ...fields } = deal;
    const lead_id = lead_external_id ? leads.get(lead_external_id) : null;
    const contact_id = contact_external_id ? contacts.get(contact_external_id) : null;
    if (lead_id === undefined) {
      errors.push({
        index: record.index,
        error: `lead_external_id "${lead_external_id}" was not migrated from ${sourceSystem}`,
      });
    } else if (contact_id === undefined) {
      errors.push({
        index: record.index,
        error: `contact_external_id "${contact_external_id}" was not migrated from ${sourceSystem}`,
      });
    } else {
      ready.push({ record, row: { ...fields, lead_id, contact_id } });
    }
  }

  const known = ready.filter((r) => existing.has(r.record.external_id));
  const updated = await updateDealsById(
    trx,
    tenantId,
    known.map((r) => ({ id: existing.get(r.record.external_id) as string, deal: r.row })),
  );
  const stillThere = new Set(updated.map((d) => d.id));
  // A mapped deal deleted since is migrated again as a new one.
  const fresh = ready.filter((r) => !stillThere.has(existing.get(r.record.external_id) ?? ''));
  const inserted = await insertDeals(
    trx,
    tenantId,
    fresh.map((r) => r.row),
  );
  await writeEvents(trx, [
    ...inserted.map((d) => dealCreatedEvent(tenantId, d)),
    ...updated.map((d) => dealUpdatedEvent(tenantId, d)),
  ]);

  const stored: StoredRecord[] = [
    ...fresh.map((r, i) => ({
      index: r.record.index,
      external_id: r.record.external_id,
      record_id: inserted[i].id,
      created: true,
    })),
    ...known
      .filter((r) => stillThere.has(existing.get(r.record.external_id) as string))
      .map((r) => ({
        index: r.record.index,
        external_id: r.record.external_id,
        record_id: existing.get(r.record.external_id) as string,
        created: false,
      })),
  ];
  return { stored, errors };
}
