import { indexLeadSearchTexts, LEAD_MODULE } from '@crm/records';
import { withSystemScope } from '@crm/shared/db';
import { consumerWorker, type Worker, type WorkerDeps } from '@crm/shared/service';
import { IdBatcher } from './id-batcher';

/** The durable consumer's name: every crm-api instance shares its work. */
export const LEAD_SEARCH_CONSUMER = 'crm-api-lead-search';
/** Leads per indexing transaction. */
const BATCH = 128;
/** Events in hand at once: two batches, so the next one fills while one is being written. */
const IN_HAND = 2 * BATCH;
/** Longest wait for a batch to fill once it has a lead: the lag a lone write adds. */
const BATCH_WAIT_MS = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Keeps the lead search index (crm_lead_search_texts) up to date after commit: a durable
 * consumer of the `lead.*` events (every write of a lead emits one: the lead routes, the
 * import, forms, the migrate service and MCP all write through the records library), which
 * gathers their lead ids into batches and re-reads those leads (indexLeadSearchTexts). Each
 * event is acked once the batch holding it has committed; a failed batch is redelivered, and
 * re-indexing a lead twice or out of order is harmless, since only the live row counts.
 */
export function leadSearchIndexer(deps: WorkerDeps): Worker {
  const batcher = new IdBatcher(
    (ids) => withSystemScope(deps.db, (trx) => indexLeadSearchTexts(trx, ids)),
    BATCH,
    BATCH_WAIT_MS,
  );
  const consumer = consumerWorker(LEAD_SEARCH_CONSUMER, deps.bus, {
    durable: LEAD_SEARCH_CONSUMER,
    types: ['lead.*'],
    concurrency: IN_HAND,
    handler: async (event) => {
      // Not a lead's event (nothing to index): acked as handled.
      if (event.record.module !== LEAD_MODULE || !UUID.test(event.record.id)) return;
      await batcher.add(event.record.id);
    },
  });
  return {
    name: consumer.name,
    start: () => consumer.start(),
    async stop() {
      await consumer.stop();
      await batcher.drained();
    },
  };
}
