import {
  checkHealth,
  type HealthOptions,
  type HealthResponse,
  type RetentionCheck,
} from '@crm/shared/http';
import type { RequestHandler } from 'express';

export type ServiceStatus = 'up' | 'down';

export interface PlatformHealth extends HealthResponse {
  services: Record<string, { status: ServiceStatus; latencyMs: number | null }>;
}

interface Probe {
  status: ServiceStatus;
  latencyMs: number | null;
  /** The service's own retention check, when its /health has one. */
  retention?: RetentionCheck;
}

async function probe(url: string, timeoutMs: number): Promise<Probe> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    // 503 from a service means its own dependencies are down: not serving.
    if (!res.ok) {
      await res.body?.cancel();
      return { status: 'down', latencyMs: null };
    }
    const body = (await res.json().catch(() => undefined)) as Partial<HealthResponse> | undefined;
    return {
      status: 'up',
      latencyMs: Math.round(performance.now() - started),
      retention: body?.checks?.retention,
    };
  } catch {
    return { status: 'down', latencyMs: null };
  }
}

/**
 * One retention check for the platform: the gateway's own tables and every service's, each lag
 * named by the service that sweeps it. `behind` when any is; `unknown` when none is behind but
 * a check could not run.
 */
function platformRetention(
  own: RetentionCheck | undefined,
  services: Record<string, RetentionCheck | undefined>,
): RetentionCheck | undefined {
  const checks = Object.entries({ gateway: own, ...services }).filter(
    (entry): entry is [string, RetentionCheck] => entry[1] !== undefined,
  );
  if (checks.length === 0) return undefined;
  const behind = checks.flatMap(([service, check]) =>
    check.behind.map((lag) => ({ service, ...lag })),
  );
  const unknown = checks.some(([, check]) => check.status === 'unknown');
  return { status: behind.length > 0 ? 'behind' : unknown ? 'unknown' : 'ok', behind };
}

/**
 * The health response plus a `services` map (and `checks.events` when `checkEvents` is given,
 * `checks.retention` for the gateway's and every service's retention sweeps): `unhealthy` (503)
 * when the database does not answer; `degraded` (200) when it does but a service is down, memory
 * is over its threshold, events cannot be published or retention is behind; `healthy` (200)
 * otherwise.
 */
export async function platformHealth(
  options: HealthOptions & { services: Record<string, string>; serviceTimeoutMs?: number },
): Promise<PlatformHealth> {
  const [own, ...probes] = await Promise.all([
    checkHealth(options),
    ...Object.values(options.services).map((url) => probe(url, options.serviceTimeoutMs ?? 1000)),
  ]);
  const names = Object.keys(options.services);
  const services = Object.fromEntries(
    names.map((name, i) => [name, { status: probes[i].status, latencyMs: probes[i].latencyMs }]),
  );
  const retention = platformRetention(
    own.checks.retention,
    Object.fromEntries(names.map((name, i) => [name, probes[i].retention])),
  );
  const anyDown = probes.some((p) => p.status === 'down');
  const status =
    own.status === 'unhealthy'
      ? 'unhealthy'
      : anyDown || own.status === 'degraded' || retention?.status === 'behind'
        ? 'degraded'
        : 'healthy';
  return {
    ...own,
    status,
    checks: { ...own.checks, ...(retention && { retention }) },
    services,
  };
}

/**
 * The public probe. It is unauthenticated and each check costs a database ping, an outbox
 * lookup and five downstream requests, so concurrent callers share one check in flight, and a
 * finished check answers for `cacheMs` (default 1 s) before the next one runs.
 */
export function platformHealthHandler(
  options: Parameters<typeof platformHealth>[0] & { cacheMs?: number },
): RequestHandler {
  let last: { at: number; health: Promise<PlatformHealth> } | undefined;
  return async (_req, res) => {
    const now = Date.now();
    if (!last || now - last.at >= (options.cacheMs ?? 1000)) {
      last = { at: now, health: platformHealth(options) };
    }
    const health = await last.health;
    res.status(health.status === 'unhealthy' ? 503 : 200).json(health);
  };
}
