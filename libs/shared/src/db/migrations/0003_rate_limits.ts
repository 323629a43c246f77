import { sql, type Kysely } from 'kysely';

/**
 * Counters of the gateway's rate limits (rate-limiter-flexible's Postgres store, in its own
 * column layout), shared by every gateway replica so they enforce one limit together. Not
 * tenant data: keys are `<limit>:<tenant id or client ip>`; only the gateway's pool uses it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE rate_limits (
    key varchar(255) PRIMARY KEY,
    points integer NOT NULL DEFAULT 0,
    expire bigint
  )`.execute(db);
  await sql`CREATE INDEX rate_limits_by_expiry ON rate_limits (expire)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS rate_limits`.execute(db);
}
