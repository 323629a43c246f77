import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { withSystemScope } from '../db/tenant-scope';
import type { EventBus } from './bus';

/** `checks.events` of the platform health response. */
export interface EventsHealth {
  /** `down` while events cannot be published: the bus is disconnected or the last try failed. */
  status: 'up' | 'down';
  /** Seconds since the oldest event still waiting in the outbox was written; null when none. */
  oldestUnpublishedAgeSeconds: number | null;
}

/**
 * Whether events are going out, for the health probe. Two signals, both cheap:
 *
 * - the bus's own connection (the gateway's NATS connection, or the one bus of `npm start`),
 *   which says "down" the moment NATS goes away, before any event is waiting;
 * - the oldest unpublished outbox row (one row from the relay's partial index), whose
 *   `last_error` a relay sets when publishing it failed and which is gone once it is
 *   published. It lives in the database, so it speaks for every relay of every service,
 *   wherever they run.
 *
 * A database that does not answer reports `down` with no age (the database check says why).
 */
export function outboxHealthCheck(options: {
  db: Kysely<Database>;
  bus: EventBus;
  timeoutMs?: number;
}): () => Promise<EventsHealth> {
  return async () => {
    const connected = options.bus.isConnected();
    let oldest: { age: number; failed: boolean } | undefined;
    try {
      oldest = await withTimeout(oldestUnpublished(options.db), options.timeoutMs ?? 2000);
    } catch {
      return { status: 'down', oldestUnpublishedAgeSeconds: null };
    }
    return {
      status: connected && !oldest?.failed ? 'up' : 'down',
      oldestUnpublishedAgeSeconds: oldest ? Math.max(0, Math.round(oldest.age)) : null,
    };
  };
}

async function oldestUnpublished(
  db: Kysely<Database>,
): Promise<{ age: number; failed: boolean } | undefined> {
  const row = await withSystemScope(db, (trx) =>
    trx
      .selectFrom('event_outbox')
      .select([
        sql<string>`extract(epoch from now() - created_at)`.as('age'),
        sql<boolean>`last_error is not null`.as('failed'),
      ])
      .where('published_at', 'is', null)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst(),
  );
  return row && { age: Number(row.age), failed: row.failed };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
