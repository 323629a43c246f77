import { sql, type Kysely } from 'kysely';

/**
 * Replays of workflow runs, and the run history's filters.
 *
 * - `replay_of`: a run a person started again (POST /api/automations/runs/:id/replay) points at
 *   the run it replays (always the first run of the chain: a replay of a replay points at the
 *   original), so the receiver gets the same `webhook-id` as the original and can deduplicate.
 *   A replay has no event of its own: the (workflow, event) unique index keeps one run per
 *   event, and a replay is a second run of that event, so the check "a run that is not a test
 *   has an event" allows a replay without one. Its own partial index finds a run's replays.
 * - `replayed_by`: the member who asked for the replay (no foreign key: a member who leaves does
 *   not take the history with them).
 * - `context`: what the run was about (the record's fields and the event as the run saw them),
 *   so a replay sends the original body again. Runs recorded before this migration have none
 *   and cannot be replayed (the route says so).
 * - The run history across workflows pages newest first by `started_at`, optionally by status:
 *   `(tenant_id, started_at, id)` and `(tenant_id, status, started_at, id)`, read forwards or
 *   backwards with no sort step (a time range is one range of either).
 *
 * CREATE INDEX (not CONCURRENTLY: migrations run in a transaction) holds writes to the runs
 * while it builds, once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE workflow_runs
    ADD COLUMN replay_of uuid REFERENCES workflow_runs(id) ON DELETE CASCADE,
    ADD COLUMN replayed_by uuid,
    ADD COLUMN context jsonb,
    DROP CONSTRAINT workflow_runs_check,
    ADD CONSTRAINT workflow_runs_has_event
      CHECK (is_test OR event_id IS NOT NULL OR replay_of IS NOT NULL)`.execute(db);
  await sql`CREATE INDEX workflow_runs_by_replay_of ON workflow_runs (replay_of)
    WHERE replay_of IS NOT NULL`.execute(db);
  await sql`CREATE INDEX workflow_runs_by_started ON workflow_runs (tenant_id, started_at, id)`.execute(
    db,
  );
  await sql`CREATE INDEX workflow_runs_by_status
    ON workflow_runs (tenant_id, status, started_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS workflow_runs_by_status, workflow_runs_by_started,
    workflow_runs_by_replay_of`.execute(db);
  await sql`DELETE FROM workflow_runs WHERE replay_of IS NOT NULL`.execute(db);
  await sql`ALTER TABLE workflow_runs
    DROP CONSTRAINT workflow_runs_has_event,
    DROP COLUMN context,
    DROP COLUMN replayed_by,
    DROP COLUMN replay_of,
    ADD CONSTRAINT workflow_runs_check CHECK (is_test OR event_id IS NOT NULL)`.execute(db);
}
