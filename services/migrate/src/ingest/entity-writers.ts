import { ingestContacts, ingestProducts, type IngestResult } from '@crm/records';
import { MIGRATED_ACTIVITIES } from './activity-writer';
import type { ChunkOutcome, SourceRecord, WriteContext } from './writer-contract';
import { MIGRATED_DEALS } from './deal-writer';
import { writeLeadsBySourceId } from './lead-writer';
import { writeByMapping } from './mapped-writer';
import type { MigrationEntity } from './ingest.schema';

type EntityWriter = (ctx: WriteContext, records: SourceRecord[]) => Promise<ChunkOutcome>;

/**
 * Pairs an ingest's results (stored records in input order, refused ones by position in
 * `records`) back with the source records they came from.
 */
function pairUp<T extends { id: string; created: boolean }>(
  records: SourceRecord[],
  result: Pick<IngestResult<T>, 'data' | 'errors'>,
): ChunkOutcome {
  const refused = new Set(result.errors.map((e) => e.index));
  const kept = records.filter((_, position) => !refused.has(position));
  return {
    stored: kept.map((record, i) => ({
      index: record.index,
      external_id: record.external_id,
      record_id: result.data[i].id,
      created: result.data[i].created,
    })),
    errors: result.errors.map((e) => ({ index: records[e.index].index, error: e.error })),
  };
}

/**
 * How each record type lands in the platform's own tables, with the rules every other writer
 * applies (libs/records): leads by the mapping of their source id, with the lead import's
 * normalisation, texts and events and their email unique per tenant (lead-writer.ts), contacts
 * by a source-namespaced external id
 * (`<source_system>:<external_id>`, so two systems' ids never meet), products by sku.
 * deals and activities by the mapping itself (mapped-writer.ts), linked to records migrated
 * from the same source.
 */
export const ENTITY_WRITERS: Record<MigrationEntity, EntityWriter> = {
  leads: writeLeadsBySourceId,
  contacts: async ({ trx, tenantId, sourceSystem }, records) => {
    const rows = records.map((r) => ({
      ...r.fields,
      external_id: `${sourceSystem}:${r.external_id}`,
    }));
    const result = await ingestContacts(trx, tenantId, rows, { source: `migrate:${sourceSystem}` });
    return pairUp(records, result);
  },
  deals: (ctx, records) => writeByMapping(MIGRATED_DEALS, ctx, records),
  activities: (ctx, records) => writeByMapping(MIGRATED_ACTIVITIES, ctx, records),
  products: async ({ trx, tenantId }, records) => {
    const result = await ingestProducts(
      trx,
      tenantId,
      records.map((r) => r.fields),
    );
    return pairUp(records, result);
  },
};
