import { checkHealth, type HealthOptions, type HealthResponse } from '@crm/shared/http';
import type { RequestHandler } from 'express';

export type ServiceStatus = 'up' | 'down';

export interface PlatformHealth extends HealthResponse {
  services: Record<string, { status: ServiceStatus; latencyMs: number | null }>;
}

async function probe(
  url: string,
  timeoutMs: number,
): Promise<{ status: ServiceStatus; latencyMs: number | null }> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    // 503 from a service means its own dependencies are down: not serving.
    if (!res.ok) return { status: 'down', latencyMs: null };
    return { status: 'up', latencyMs: Math.round(performance.now() - started) };
  } catch {
    return { status: 'down', latencyMs: null };
  }
}

/**
 * The health response plus a `services` map (and `checks.events` when `checkEvents` is given):
 * `unhealthy` (503) when the database does not answer; `degraded` (200) when it does but a
 * service is down, memory is over its threshold or events cannot be published; `healthy` (200)
 * otherwise.
 */
export async function platformHealth(
  options: HealthOptions & { services: Record<string, string>; serviceTimeoutMs?: number },
): Promise<PlatformHealth> {
  const [own, ...probes] = await Promise.all([
    checkHealth(options),
    ...Object.values(options.services).map((url) => probe(url, options.serviceTimeoutMs ?? 1000)),
  ]);
  const services = Object.fromEntries(
    Object.keys(options.services).map((name, i) => [name, probes[i]]),
  );
  const anyDown = probes.some((p) => p.status === 'down');
  const status =
    own.status === 'unhealthy'
      ? 'unhealthy'
      : anyDown || own.status === 'degraded'
        ? 'degraded'
        : 'healthy';
  return { ...own, status, services };
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
