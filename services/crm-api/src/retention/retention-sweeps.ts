import {
  keepMs,
  RETENTION_POLICIES,
  retentionSweep,
  serviceRetention,
} from '@crm/shared/retention';
import type { Config } from '../config';
import { deletePublishedEventsBefore, oldestPublishedEventBefore } from './retention.repository';

/** crm-api sweeps the event outbox's published rows (every relay's table; one sweeper). */
export function crmApiRetention(config: Config) {
  const policy = RETENTION_POLICIES.publishedEvents;
  return serviceRetention(config, [
    retentionSweep('event_outbox', policy, keepMs(policy, config[policy.variable]), {
      sweepBatch: deletePublishedEventsBefore,
      oldestBefore: oldestPublishedEventBefore,
    }),
  ]);
}
