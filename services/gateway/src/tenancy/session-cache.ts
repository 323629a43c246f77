import { Client, type Pool } from 'pg';
import type { Logger } from 'pino';
import type { Membership, SessionUser } from './cross-tenant-lookups';
import {
  listenForSessionChanges,
  SESSION_CACHE_CHANNEL,
  type SessionChange,
} from './session-changes.repository';

export interface CachedSession {
  user: SessionUser;
  memberships: Membership[];
  /** When the session itself expires (epoch ms). */
  sessionExpiresAt: number;
}

interface Entry {
  session: CachedSession;
  until: number;
}

/**
 * A short-lived in-memory cache of resolved sessions (user + memberships), keyed by the session
 * token's hash. An entry lives at most `ttlMs` (and never past the session's own expiry); every
 * replica LISTENs on SESSION_CACHE_CHANNEL and drops the entries a sign-out, a membership change
 * or a tenant change names as soon as that change commits. While the LISTEN connection is down
 * (and until it is back) the cache is emptied and bypassed, so a lost notification can never
 * keep a stale entry.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private listening = false;
  private client?: Client;
  private retry?: NodeJS.Timeout;
  private closed = false;
  /**
   * Bumped by every drop: a session read from the database while a change was being dropped
   * may hold the rows from before it, so set() keeps only what was read in one generation.
   */
  private generation = 0;

  constructor(
    private readonly pool: Pool,
    readonly ttlMs: number,
    private readonly logger: Logger,
  ) {
    if (ttlMs <= 0) return;
    void this.listen();
    // The cache lives as long as the pool it reads through: once that is closed, so is this.
    const watch = setInterval(() => {
      if ((pool as Pool & { ending?: boolean }).ending) {
        clearInterval(watch);
        void this.close();
      }
    }, 500);
    watch.unref();
  }

  get(tokenHash: string): CachedSession | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.session;
  }

  /** Call before reading a session from the database; pass the result to set(). */
  begin(): number {
    return this.generation;
  }

  set(tokenHash: string, session: CachedSession, readIn: number): void {
    if (!this.listening || readIn !== this.generation) return;
    if (this.entries.size >= 100_000) this.entries.clear();
    const until = Math.min(Date.now() + this.ttlMs, session.sessionExpiresAt);
    this.entries.set(tokenHash, { session, until });
  }

  /** Drops the entries a change names (also called locally, before the response is sent). */
  drop(change: SessionChange): void {
    this.generation += 1;
    if ('token' in change) {
      this.entries.delete(change.token);
      return;
    }
    for (const [hash, { session }] of this.entries) {
      const hit =
        'user' in change
          ? session.user.id === change.user
          : session.memberships.some((m) => m.tenantId === change.tenant);
      if (hit) this.entries.delete(hash);
    }
  }

  private lost(error?: unknown): void {
    if (error) this.logger.warn({ err: error }, 'session cache: LISTEN connection lost');
    this.listening = false;
    this.generation += 1;
    this.entries.clear();
    const client = this.client;
    this.client = undefined;
    client?.removeAllListeners();
    client?.on('error', () => undefined);
    void client?.end().catch(() => undefined);
    if (!this.closed && !this.retry) {
      this.retry = setTimeout(() => {
        this.retry = undefined;
        void this.listen();
      }, 1000);
      this.retry.unref();
    }
  }

  private async listen(): Promise<void> {
    const client = new Client(this.pool.options);
    this.client = client;
    client.on('error', (error) => this.lost(error));
    client.on('end', () => {
      if (this.client === client) this.lost();
    });
    client.on('notification', (message) => {
      if (message.channel !== SESSION_CACHE_CHANNEL) return;
      try {
        this.drop(JSON.parse(message.payload ?? '') as SessionChange);
      } catch {
        this.generation += 1;
        this.entries.clear();
      }
    });
    try {
      await client.connect();
      // The LISTEN connection must not keep a process (or a test run) alive on its own.
      (
        client as unknown as { connection?: { stream?: { unref?: () => void } } }
      ).connection?.stream?.unref?.();
      await listenForSessionChanges(client);
      if (this.closed || this.client !== client) {
        void client.end().catch(() => undefined);
        return;
      }
      this.generation += 1;
      this.entries.clear();
      this.listening = true;
    } catch (error) {
      if (this.client === client) this.lost(error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    this.entries.clear();
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}
