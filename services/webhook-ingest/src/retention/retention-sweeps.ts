import {
  keepMs,
  RETENTION_POLICIES,
  retentionSweep,
  serviceRetention,
} from '@crm/shared/retention';
import type { Config } from '../config';
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
 * payload) and the provider events its receivers store.
 */
export function webhookIngestRetention(config: Config) {
  const { ledgerPayloads, ledgerRows, providerEvents } = RETENTION_POLICIES;
  const providerKeepMs = keepMs(providerEvents, config[providerEvents.variable]);
  return serviceRetention(config, [
    retentionSweep(
      'inbound_events.raw_body',
      ledgerPayloads,
      keepMs(ledgerPayloads, config[ledgerPayloads.variable]),
      { sweepBatch: dropLedgerPayloadsBefore, oldestBefore: oldestLedgerPayloadBefore },
    ),
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
