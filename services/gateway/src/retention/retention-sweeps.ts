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
  deleteUnusedClientsBefore,
  EXPIRING_TABLES,
  oldestCounterExpiredBefore,
  oldestExpiredBefore,
  oldestUnusedClientBefore,
} from './retention.repository';

/**
 * The gateway sweeps what expires: sessions, OAuth authorization requests, codes and tokens, and
 * the rate-limit counters (one sweeper for every limiter: rate-limiter-flexible's own timer per
 * limiter was never stopped and kept each closed app reachable); and OAuth clients nobody
 * connected.
 */
export function gatewayRetention(config: Config) {
  const { expiredSessions, expiredOAuth, unusedOAuthClients, rateLimitCounters } =
    RETENTION_POLICIES;
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
      'oauth_clients',
      unusedOAuthClients,
      keepMs(unusedOAuthClients, config[unusedOAuthClients.variable]),
      { sweepBatch: deleteUnusedClientsBefore, oldestBefore: oldestUnusedClientBefore },
    ),
    retentionSweep(
      'rate_limits',
      rateLimitCounters,
      keepMs(rateLimitCounters, config[rateLimitCounters.variable]),
      { sweepBatch: deleteCountersExpiredBefore, oldestBefore: oldestCounterExpiredBefore },
    ),
  ]);
}
