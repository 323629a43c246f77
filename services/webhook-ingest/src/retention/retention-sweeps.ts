import {
  keepMs,
  partitionSweep,
  RETENTION_POLICIES,
  retentionSweep,
  serviceRetention,
} from '@crm/shared/retention';
import type { Config } from '../config';
import {
  dropOldestPayloadPartitionBefore,
  ensurePayloadPartitions,
  missingPayloadPartition,
  oldestPayloadPartitionBefore,
} from './payload-partitions.repository';
import {
  deleteLedgerRowsBefore,
  deleteProviderEventsBefore,
  dropLedgerPayloadsBefore,
  oldestLedgerPayloadBefore,
  oldestLedgerRowBefore,
  oldestProviderEventBefore,
  PROVIDER_EVENT_TABLES,
} from './retention.repository';

/**
 * webhook-ingest sweeps its ledger (payloads first, rows later: the dedup key outlives the
 * payload) and the provider events its receivers store. The payloads go a week at a time with
 * their partition of inbound_event_payloads, whose partitions each round first makes ahead;
 * those recorded before that table, in the ledger row itself, are still stripped row by row
 * until none is left.
 */
export function webhookIngestRetention(config: Config) {
  const { ledgerPayloads, ledgerRows, providerEvents } = RETENTION_POLICIES;
  const payloadKeepMs = keepMs(ledgerPayloads, config[ledgerPayloads.variable]);
  const providerKeepMs = keepMs(providerEvents, config[providerEvents.variable]);
  return serviceRetention(config, [
    partitionSweep('inbound_event_payloads', ledgerPayloads, payloadKeepMs, {
      prepare: (db, now) => ensurePayloadPartitions(db, now),
      dropOneBefore: (db, cutoff) => dropOldestPayloadPartitionBefore(db, cutoff),
      oldestBefore: oldestPayloadPartitionBefore,
      missing: missingPayloadPartition,
    }),
    retentionSweep('inbound_events.raw_body', ledgerPayloads, payloadKeepMs, {
      sweepBatch: dropLedgerPayloadsBefore,
      oldestBefore: oldestLedgerPayloadBefore,
    }),
    retentionSweep('inbound_events', ledgerRows, keepMs(ledgerRows, config[ledgerRows.variable]), {
      sweepBatch: deleteLedgerRowsBefore,
      oldestBefore: oldestLedgerRowBefore,
    }),
    ...PROVIDER_EVENT_TABLES.map((table) =>
      retentionSweep(table, providerEvents, providerKeepMs, {
        sweepBatch: (db, cutoff, limit) => deleteProviderEventsBefore(db, table, cutoff, limit),
        oldestBefore: (db, cutoff) => oldestProviderEventBefore(db, table, cutoff),
      }),
    ),
  ]);
}
