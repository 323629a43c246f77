import {
  keepMs,
  RETENTION_POLICIES,
  retentionSweep,
  serviceRetention,
} from '@crm/shared/retention';
import type { Config } from '../config';
import { deleteNoncesSeenBefore, oldestNonceSeenBefore } from './retention.repository';

/** migrate sweeps the nonces of signed requests whose timestamps can no longer be accepted. */
export function migrateRetention(config: Config) {
  const policy = RETENTION_POLICIES.migrateNonces;
  return serviceRetention(config, [
    retentionSweep('migrate_nonces', policy, keepMs(policy, config[policy.variable]), {
      sweepBatch: deleteNoncesSeenBefore,
      oldestBefore: oldestNonceSeenBefore,
    }),
  ]);
}
