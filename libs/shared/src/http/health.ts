import { getHeapStatistics } from 'node:v8';
import type { RequestHandler } from 'express';

export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';

export interface HealthOptions {
  version: string;
  /** Resolves when the database answers; rejects (or times out) when it does not. */
  checkDatabase?: () => Promise<void>;
  databaseTimeoutMs?: number;
  /** Heap use above this share of the heap limit reports `degraded`. */
  memoryDegradedRatio?: number;
  /**
   * Whether events can be published (the gateway's /api/health passes the outbox check of
   * libs/shared/src/events). Given, the response has `checks.events`, and `down` there makes
   * the status `degraded`: requests are still served, the events wait in the outbox.
   */
  checkEvents?: () => Promise<EventsCheck>;
  /**
   * Whether the service's retention sweeps keep up (libs/shared/src/retention). Given, the
   * response has `checks.retention`, and `behind` there makes the status `degraded`.
   */
  checkRetention?: () => Promise<RetentionCheck>;
}

/**
 * A table whose oldest row a retention policy removes is past the policy by over its grace, or
 * which lacks what its writes need (a partition not made ahead).
 */
export interface RetentionLag {
  /** The service that sweeps it (set by the gateway's /api/health). */
  service?: string;
  table: string;
  policy: string;
  /**
   * Age of the oldest row the policy removes (by its time column), in seconds; for a table
   * partitioned by time, the age of its oldest partition's upper bound. Null when nothing is
   * past the policy and the entry is about `missing` alone.
   */
  oldestAgeSeconds: number | null;
  /** The policy's keep period, in seconds. */
  keepSeconds: number;
  /** What the table lacks, e.g. the partition of next week; absent when nothing. */
  missing?: string;
}

export interface RetentionCheck {
  /** `unknown`: the check itself failed (the database did not answer it). */
  status: 'ok' | 'behind' | 'unknown';
  behind: RetentionLag[];
}

export interface EventsCheck {
  status: 'up' | 'down';
  /** Seconds since the oldest event still waiting to be published was written; null when none. */
  oldestUnpublishedAgeSeconds: number | null;
}

export interface HealthResponse {
  status: HealthStatus;
  version: string;
  uptime: number;
  checks: {
    database: { status: 'up' | 'down' | 'not_configured'; latencyMs: number | null };
    memory: {
      status: 'ok' | 'high';
      heapUsedBytes: number;
      heapLimitBytes: number;
      rssBytes: number;
    };
    /** Only where the health options check events (the gateway's /api/health). */
    events?: EventsCheck;
    /** Only where the health options check retention (every service that sweeps). */
    retention?: RetentionCheck;
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The health response `{ status, version, uptime, checks: { database, memory } }` (plus
 * `checks.events` and `checks.retention` when their checks are given): `unhealthy` when the
 * database does not answer, else `degraded` when memory is high, events cannot be published or
 * retention is behind, else `healthy`.
 */
export async function checkHealth(options: HealthOptions): Promise<HealthResponse> {
  // Runs alongside the database check; a check that throws counts as down.
  const { checkEvents, checkRetention } = options;
  const events =
    checkEvents &&
    Promise.resolve()
      .then(() => checkEvents())
      .catch((): EventsCheck => ({ status: 'down', oldestUnpublishedAgeSeconds: null }));
  // Bounded like the database check: a liveness probe must answer even when a lookup hangs.
  const retention =
    checkRetention &&
    withTimeout(
      Promise.resolve().then(() => checkRetention()),
      options.databaseTimeoutMs ?? 2000,
    ).catch((): RetentionCheck => ({ status: 'unknown', behind: [] }));
  let database: HealthResponse['checks']['database'] = {
    status: 'not_configured',
    latencyMs: null,
  };
  if (options.checkDatabase) {
    const started = performance.now();
    try {
      await withTimeout(options.checkDatabase(), options.databaseTimeoutMs ?? 2000);
      database = { status: 'up', latencyMs: Math.round(performance.now() - started) };
    } catch {
      database = { status: 'down', latencyMs: null };
    }
  }
  const heap = getHeapStatistics();
  const heapUsedBytes = process.memoryUsage().heapUsed;
  const heapLimitBytes = heap.heap_size_limit;
  const memoryHigh = heapUsedBytes > heapLimitBytes * (options.memoryDegradedRatio ?? 0.9);
  const memory = {
    status: memoryHigh ? ('high' as const) : ('ok' as const),
    heapUsedBytes,
    heapLimitBytes,
    rssBytes: process.memoryUsage.rss(),
  };
  const eventsCheck = await events;
  const retentionCheck = await retention;
  const status: HealthStatus =
    database.status === 'down'
      ? 'unhealthy'
      : memoryHigh || eventsCheck?.status === 'down' || retentionCheck?.status === 'behind'
        ? 'degraded'
        : 'healthy';
  return {
    status,
    version: options.version,
    uptime: Math.round(process.uptime()),
    checks: {
      database,
      memory,
      ...(eventsCheck && { events: eventsCheck }),
      ...(retentionCheck && { retention: retentionCheck }),
    },
  };
}

/** 200 when healthy or degraded (still serving), 503 when unhealthy, so probes can act on it. */
export function healthHandler(options: HealthOptions): RequestHandler {
  return async (_req, res) => {
    const health = await checkHealth(options);
    res.status(health.status === 'unhealthy' ? 503 : 200).json(health);
  };
}

export interface ReadinessOptions {
  /** Resolves when the database answers; rejects (or times out) when it does not. */
  checkDatabase?: () => Promise<void>;
  databaseTimeoutMs?: number;
  /** The event bus: not ready while it cannot take events (NATS disconnected or closed). */
  bus?: { isConnected(): boolean };
  /** True once the process has begun to shut down (SIGTERM): not ready, whatever else. */
  isDraining?: () => boolean;
}

export interface ReadinessResponse {
  status: 'ready' | 'not_ready';
  checks: {
    /** `not_checked` while draining. */
    database: 'up' | 'down' | 'not_configured' | 'not_checked';
    bus: 'up' | 'down' | 'not_configured';
    draining: boolean;
  };
}

/**
 * Whether this process should be sent traffic: the database answers, the event bus is
 * connected, and the process is not shutting down. Unlike /health (liveness: is the process
 * itself alive), a pod that is not ready is only taken out of its Service, never restarted.
 * While draining the database is not asked at all: the answer is no either way.
 */
export async function checkReadiness(options: ReadinessOptions): Promise<ReadinessResponse> {
  const draining = options.isDraining?.() ?? false;
  const bus = options.bus ? (options.bus.isConnected() ? 'up' : 'down') : 'not_configured';
  let database: ReadinessResponse['checks']['database'] = 'not_configured';
  if (draining) {
    database = 'not_checked';
  } else if (options.checkDatabase) {
    const check = options.checkDatabase;
    database = await withTimeout(
      Promise.resolve().then(() => check()),
      options.databaseTimeoutMs ?? 2000,
    ).then(
      () => 'up' as const,
      () => 'down' as const,
    );
  }
  const ready = !draining && database !== 'down' && bus !== 'down';
  return { status: ready ? 'ready' : 'not_ready', checks: { database, bus, draining } };
}

/** GET /ready: 200 `{ status: 'ready', checks }` or 503 `{ status: 'not_ready', checks }`. */
export function readinessHandler(options: ReadinessOptions): RequestHandler {
  return async (_req, res) => {
    const readiness = await checkReadiness(options);
    res.status(readiness.status === 'ready' ? 200 : 503).json(readiness);
  };
}
