import { withSystemScope, type Database } from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';

/*
 * automation's retention statements (libs/shared/src/retention): workflow runs across tenants
 * by age alone (the system scope), on workflow_runs_by_age (migration 0030); a run's steps go
 * with it (ON DELETE CASCADE), and so do its replays (replay_of). A run someone replayed
 * within the window is kept with its chain until that replay is old enough too.
 */

/**
 * A run's start as UTC wall-clock time: what workflow_runs_by_age holds (an expression the run
 * history's lists never use, so it never competes with their tenant-leading indexes).
 */
const startedUtc = sql`(r.started_at AT TIME ZONE 'UTC')`;

/** The runs started before `cutoff` that no replay started since keeps. */
const expiredRuns = (cutoff: Date) => sql`
  FROM workflow_runs AS r
 WHERE ${startedUtc} < (${cutoff}::timestamptz AT TIME ZONE 'UTC')
   AND NOT EXISTS (SELECT 1 FROM workflow_runs AS replay
                    WHERE replay.replay_of = r.id AND replay.started_at >= ${cutoff})`;

/** Deletes at most `limit` such runs (and their steps), oldest first; how many runs. */
export async function deleteWorkflowRunsBefore(
  db: Kysely<Database>,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const result = await withSystemScope(db, (trx) =>
    sql`DELETE FROM workflow_runs WHERE id IN (
          SELECT r.id ${expiredRuns(cutoff)}
           ORDER BY ${startedUtc} LIMIT ${limit} FOR UPDATE OF r SKIP LOCKED)`.execute(trx),
  );
  return Number(result.numAffectedRows ?? 0);
}

/**
 * When the oldest such run started, or null: the head of the index walked until a run no replay
 * keeps (ORDER BY ... LIMIT 1 stops there; a min() over the anti-join would not).
 */
export async function oldestWorkflowRunBefore(
  db: Kysely<Database>,
  cutoff: Date,
): Promise<Date | null> {
  const { rows } = await withSystemScope(db, (trx) =>
    sql<{ started_at: Date }>`SELECT r.started_at ${expiredRuns(cutoff)}
      ORDER BY ${startedUtc} LIMIT 1`.execute(trx),
  );
  return rows[0]?.started_at ?? null;
}
