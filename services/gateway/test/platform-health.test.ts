import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { platformHealth } from '../src/health/platform-health';
import { startEchoService, testGateway, type EchoService } from './support/gateway';

/**
 * Issue 3, point 14: GET /api/health (public) = SPEC.md health response plus a `services` map.
 * healthy (200): database and every service answer; degraded (200): a service is down;
 * unhealthy (503): the database does not answer.
 */
const SERVICES = {
  'crm-api': 'CRM_API_URL',
  'webhook-ingest': 'WEBHOOK_INGEST_URL',
  automation: 'AUTOMATION_URL',
  'mcp-ingest': 'MCP_INGEST_URL',
  migrate: 'MIGRATE_URL',
} as const;
type ServiceName = keyof typeof SERVICES;
const NAMES = Object.keys(SERVICES) as ServiceName[];

/** A service whose own health probe says it is not serving (its dependencies are down). */
async function startUnhealthyService(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"unhealthy"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('gateway GET /api/health (platform health)', () => {
  const echoes = {} as Record<ServiceName, EchoService>;
  /** The address of a service that was started and stopped: nothing listens there. */
  let stoppedUrl: string;

  beforeAll(async () => {
    for (const name of NAMES) echoes[name] = await startEchoService();
    const stopped = await startEchoService();
    stoppedUrl = stopped.url;
    await stopped.close();
  });
  afterAll(async () => {
    for (const name of NAMES) await echoes[name].close();
  });

  function envWith(overrides: Partial<Record<ServiceName, string>> = {}): Record<string, string> {
    return Object.fromEntries(
      NAMES.map((name) => [SERVICES[name], overrides[name] ?? echoes[name].url]),
    );
  }

  const up = { status: 'up', latencyMs: expect.any(Number) };
  const down = { status: 'down', latencyMs: null };

  function shape(status: string, database: object, services: Record<ServiceName, object>) {
    return {
      status,
      version: '1.2.3-test',
      uptime: expect.any(Number),
      checks: {
        database,
        memory: {
          status: 'ok',
          heapUsedBytes: expect.any(Number),
          heapLimitBytes: expect.any(Number),
          rssBytes: expect.any(Number),
        },
      },
      services,
    };
  }

  const allUp = () => Object.fromEntries(NAMES.map((n) => [n, up])) as Record<ServiceName, object>;

  it('healthy (200) when the database and every service answer; public, no session needed', async () => {
    const gw = testGateway(envWith());
    try {
      const probesBefore = Object.fromEntries(
        NAMES.map((n) => [n, echoes[n].received.filter((r) => r.url === '/health').length]),
      );
      const res = await request(gw.app).get('/api/health');

      expect(res.status).toBe(200);
      expect(res.body).toEqual(shape('healthy', up, allUp()));
      expect(Object.keys(res.body).sort()).toEqual([
        'checks',
        'services',
        'status',
        'uptime',
        'version',
      ]);
      expect(Object.keys(res.body.services).sort()).toEqual([...NAMES].sort());
      expect(res.body.uptime).toBeGreaterThanOrEqual(0);
      // Each service was actually asked, at its own /health.
      for (const name of NAMES) {
        const probes = echoes[name].received.filter((r) => r.url === '/health');
        expect(probes).toHaveLength(probesBefore[name] + 1);
        expect(probes[probes.length - 1].method).toBe('GET');
      }
    } finally {
      await gw.close();
    }
  });

  it('degraded (200) when one service is down, that service reported down', async () => {
    const gw = testGateway(envWith({ automation: stoppedUrl }));
    try {
      const res = await request(gw.app).get('/api/health');

      expect(res.status).toBe(200);
      expect(res.body).toEqual(shape('degraded', up, { ...allUp(), automation: down }));
    } finally {
      await gw.close();
    }
  });

  it('degraded (200) when a service answers its own probe with 503', async () => {
    const unhealthy = await startUnhealthyService();
    const gw = testGateway(envWith({ 'mcp-ingest': unhealthy.url }));
    try {
      const res = await request(gw.app).get('/api/health');

      expect(res.status).toBe(200);
      expect(res.body).toEqual(shape('degraded', up, { ...allUp(), 'mcp-ingest': down }));
    } finally {
      await gw.close();
      await unhealthy.close();
    }
  });

  it('unhealthy (503) when the database does not answer, services still reported', async () => {
    const gw = testGateway(envWith({ migrate: stoppedUrl }), {
      pingDatabase: () => Promise.reject(new Error('down')),
    });
    try {
      const res = await request(gw.app).get('/api/health');

      expect(res.status).toBe(503);
      expect(res.body).toEqual(
        shape('unhealthy', { status: 'down', latencyMs: null }, { ...allUp(), migrate: down }),
      );
    } finally {
      await gw.close();
    }
  });

  it('unhealthy (503) when the database is down even if every service answers', async () => {
    const gw = testGateway(envWith(), {
      pingDatabase: () => Promise.reject(new Error('down')),
    });
    try {
      const res = await request(gw.app).get('/api/health');

      expect(res.status).toBe(503);
      expect(res.body).toEqual(shape('unhealthy', { status: 'down', latencyMs: null }, allUp()));
    } finally {
      await gw.close();
    }
  });
});

describe('platformHealth() memory threshold', () => {
  it('degraded when memory is over its threshold, though the database and services answer', async () => {
    const echo = await startEchoService();
    try {
      const health = await platformHealth({
        version: '9.9.9',
        checkDatabase: () => Promise.resolve(),
        memoryDegradedRatio: 0,
        services: { 'crm-api': echo.url },
      });
      expect(health.status).toBe('degraded');
      expect(health.checks.memory.status).toBe('high');
      expect(health.checks.database).toEqual({ status: 'up', latencyMs: expect.any(Number) });
      expect(health.services).toEqual({
        'crm-api': { status: 'up', latencyMs: expect.any(Number) },
      });
    } finally {
      await echo.close();
    }
  });
});
