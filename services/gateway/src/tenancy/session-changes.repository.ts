import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';
import type { Client } from 'pg';

/**
 * The statements of the gateway's session cache: its replicas tell each other about sign-outs,
 * membership and tenant changes over one Postgres channel (LISTEN/NOTIFY, no other use).
 */
export const SESSION_CACHE_CHANNEL = 'gateway_session_cache';

/** What a change names: one session (sign-out), one user's memberships, or one tenant. */
export type SessionChange = { token: string } | { user: string } | { tenant: string };

/**
 * Tells every gateway replica to drop what it cached for `change`. Call it inside the
 * transaction of the change itself: Postgres delivers a NOTIFY only when that transaction
 * commits, so no replica can drop the entry before the change is visible and re-cache the old
 * rows.
 */
export async function notifySessionChange(trx: Trx, change: SessionChange): Promise<void> {
  await sql`SELECT pg_notify(${SESSION_CACHE_CHANNEL}, ${JSON.stringify(change)})`.execute(trx);
}

/**
 * Subscribes a connection of its own to the channel (a LISTEN lasts as long as its session,
 * so it cannot borrow a pooled connection); the changes arrive as its `notification` events.
 */
export async function listenForSessionChanges(client: Client): Promise<void> {
  await client.query(`LISTEN ${SESSION_CACHE_CHANNEL}`);
}
