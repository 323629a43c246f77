import {
  keepMs,
  RETENTION_POLICIES,
  retentionSweep,
  serviceRetention,
  type RetentionPolicy,
} from '@crm/shared/retention';
import type { Config } from '../config';
import {
  deleteCountersExpiredBefore,
  deleteExpiredBefore,
  EXPIRING_TABLES,
  oldestCounterExpiredBefore,
  oldestExpiredBefore,
} from './retention.repository';

/**
 * The gateway sweeps what expires: sessions, OAuth authorization requests, codes and tokens, and
 * the rate-limit counters (one sweeper for every limiter: rate-limiter-flexible's own timer per
 * limiter was never stopped and kept each closed app reachable).
 */
export function gatewayRetention(config: Config) {
  const { expiredSessions, expiredOAuth, rateLimitCounters } = RETENTION_POLICIES;
  const sessions = [expiredSessions, keepMs(expiredSessions, config[expiredSessions.variable])];
  const oauth = [expiredOAuth, keepMs(expiredOAuth, config[expiredOAuth.variable])];
  return serviceRetention(config, [
    ...EXPIRING_TABLES.map((table) => {
      const [policy, keep] = (table === 'sessions' ? sessions : oauth) as [RetentionPolicy, number];
      return retentionSweep(table, policy, keep, {
        sweepBatch: (db, cutoff, limit) => deleteExpiredBefore(db, table, cutoff, limit),
        oldestBefore: (db, cutoff) => oldestExpiredBefore(db, table, cutoff),
      });
    }),
    retentionSweep(
      'rate_limits',
      rateLimitCounters,
      keepMs(rateLimitCounters, config[rateLimitCounters.variable]),
      { sweepBatch: deleteCountersExpiredBefore, oldestBefore: oldestCounterExpiredBefore },
    ),
  ]);
}
