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
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** SPEC.md health response `{ status, version, uptime, checks: { database, memory } }`. */
export async function checkHealth(options: HealthOptions): Promise<HealthResponse> {
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
  const status: HealthStatus =
    database.status === 'down' ? 'unhealthy' : memoryHigh ? 'degraded' : 'healthy';
  return {
    status,
    version: options.version,
    uptime: Math.round(process.uptime()),
    checks: { database, memory },
  };
}

/** 200 when healthy or degraded (still serving), 503 when unhealthy, so probes can act on it. */
export function healthHandler(options: HealthOptions): RequestHandler {
  return async (_req, res) => {
    const health = await checkHealth(options);
    res.status(health.status === 'unhealthy' ? 503 : 200).json(health);
  };
}
