import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { RetentionCheck, RetentionLag } from '../http/health';
import type { RetentionSweep } from './sweep';

/**
 * The health check of a service's sweeps: `behind` names each table whose oldest row a policy
 * removes is older than the policy by more than `graceMs` (the sweep is not keeping up, or not
 * running; for a partitioned table, the upper bound of its oldest partition), and each table
 * that lacks what its writes need (a partition not made ahead: `missing` says which). One
 * index-backed min() (or catalog lookup) per sweep; not cached here: the public /api/health
 * already shares one check a second, and a service's /health is an internal probe.
 */
export function retentionHealthCheck(
  db: Kysely<Database>,
  sweeps: readonly RetentionSweep[],
  options: { graceMs: number; now?: () => number },
): () => Promise<RetentionCheck> {
  const now = options.now ?? Date.now;
  return async () => {
    const at = now();
    const behind: RetentionLag[] = [];
    // One after another: a health check holds one pooled connection at a time, not one per table.
    for (const sweep of sweeps) {
      const oldest = await sweep.oldestBefore(db, new Date(at - sweep.keepMs - options.graceMs));
      const missing = (await sweep.missing?.(db, new Date(at))) ?? null;
      if (!oldest && !missing) continue;
      behind.push({
        table: sweep.table,
        policy: sweep.policy.variable,
        oldestAgeSeconds: oldest ? Math.floor((at - oldest.getTime()) / 1000) : null,
        keepSeconds: Math.floor(sweep.keepMs / 1000),
        ...(missing && { missing }),
      });
    }
    return { status: behind.length > 0 ? 'behind' : 'ok', behind };
  };
}
