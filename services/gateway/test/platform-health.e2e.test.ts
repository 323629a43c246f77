import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { withSystemScope, type Db } from '@crm/shared/db';
import { InProcessBus } from '@crm/shared/events';
import {
  captureLogger,
  createTenant,
  type EchoService,
  isolatedTestDb,
  startEchoService,
  testGateway,
} from '@crm/test-kit';
import request from 'supertest';
import { platformHealth } from '../src/health/platform-health';

/**
 * GET /api/health (public) = the health response plus a `services` map.
 * healthy (200): database and every service answer; degraded (200): a service is down;
 * unhealthy (503): the database does not answer.
 * `checks.events` says whether events can be published (degraded when not),
 * with the age of the oldest event waiting in the outbox.
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

/** A bus whose transport is gone (NATS disconnected, reconnecting). */
class DisconnectedBus extends InProcessBus {
  override isConnected(): boolean {
    return false;
  }
}

describe('gateway GET /api/health (platform health)', () => {
  const echoes = {} as Record<ServiceName, EchoService>;
  /** The address of a service that was started and stopped: nothing listens there. */
  let stoppedUrl: string;
  /** An outbox of this file's own: the shared test database has other tests' events in it. */
  let database: Db;
  let own: { db: Db['db']; pool: Db['pool']; pingDatabase: Db['ping'] };

  beforeAll(async () => {
    for (const name of NAMES) echoes[name] = await startEchoService();
    const stopped = await startEchoService();
    stoppedUrl = stopped.url;
    await stopped.close();
    database = await isolatedTestDb();
    own = { db: database.db, pool: database.pool, pingDatabase: database.ping };
  });
  afterAll(async () => {
    for (const name of NAMES) await echoes[name].close();
    await database.close();
  });

  function envWith(overrides: Partial<Record<ServiceName, string>> = {}): Record<string, string> {
    return Object.fromEntries(
      NAMES.map((name) => [SERVICES[name], overrides[name] ?? echoes[name].url]),
    );
  }

  const up = { status: 'up', latencyMs: expect.any(Number) };
  const down = { status: 'down', latencyMs: null };
  const eventsUp = { status: 'up', oldestUnpublishedAgeSeconds: null };

  function shape(
    status: string,
    databaseCheck: object,
    services: Record<ServiceName, object>,
    events: object = eventsUp,
  ) {
    return {
      status,
      version: '1.2.3-test',
      uptime: expect.any(Number),
      checks: {
        database: databaseCheck,
        memory: {
          status: 'ok',
          heapUsedBytes: expect.any(Number),
          heapLimitBytes: expect.any(Number),
          rssBytes: expect.any(Number),
        },
        events,
        // The gateway's own retention sweeps (the echo services report none): nothing behind.
        retention: { status: 'ok', behind: [] },
      },
      services,
    };
  }

  const allUp = () => Object.fromEntries(NAMES.map((n) => [n, up])) as Record<ServiceName, object>;

  it('healthy (200) when the database and every service answer; public, no session needed', async () => {
    const gw = testGateway(envWith(), own);
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
    const gw = testGateway(envWith({ automation: stoppedUrl }), own);
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
    const gw = testGateway(envWith({ 'mcp-ingest': unhealthy.url }), own);
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
      ...own,
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
      ...own,
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

  /** Outbox rows as a relay leaves them: written `ageSeconds` ago, unpublished. */
  async function waitingEvents(
    rows: Array<{ ageSeconds: number; lastError?: string }>,
  ): Promise<{ clear(): Promise<void> }> {
    const tenant = await createTenant(database);
    await withSystemScope(database.db, (trx) =>
      trx
        .insertInto('event_outbox')
        .values(
          rows.map((row) => ({
            id: randomUUID(),
            tenant_id: tenant.id,
            type: 'lead.imported',
            envelope: JSON.stringify({ test: true }),
            created_at: sql<Date>`now() - make_interval(secs => ${row.ageSeconds})`,
            attempts: row.lastError ? 1 : 0,
            last_error: row.lastError ?? null,
          })),
        )
        .execute(),
    );
    return {
      clear: () =>
        withSystemScope(database.db, async (trx) => {
          await trx.deleteFrom('event_outbox').where('tenant_id', '=', tenant.id).execute();
        }),
    };
  }

  it('degraded (200) while the event bus is disconnected: events down before any event waits', async () => {
    const bus = new DisconnectedBus({ logger: captureLogger().logger });
    const gw = testGateway(envWith(), { ...own, bus });
    try {
      const res = await request(gw.app).get('/api/health');

      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        shape('degraded', up, allUp(), { status: 'down', oldestUnpublishedAgeSeconds: null }),
      );
    } finally {
      await gw.close();
      await bus.close();
    }
  });

  it('degraded (200) while the last publish failed, with the age of the oldest event waiting', async () => {
    const events = await waitingEvents([
      { ageSeconds: 42, lastError: 'TIMEOUT' },
      { ageSeconds: 5 },
    ]);
    try {
      const gw = testGateway(envWith(), own);
      try {
        const res = await request(gw.app).get('/api/health');

        expect(res.status).toBe(200);
        expect(res.body).toEqual(
          shape('degraded', up, allUp(), {
            status: 'down',
            oldestUnpublishedAgeSeconds: expect.any(Number),
          }),
        );
        // 42 s when written; a slow machine may take a second more to answer.
        expect(res.body.checks.events.oldestUnpublishedAgeSeconds).toBeGreaterThanOrEqual(42);
        expect(res.body.checks.events.oldestUnpublishedAgeSeconds).toBeLessThan(45);
      } finally {
        await gw.close();
      }
    } finally {
      await events.clear();
    }
    // Published (here: gone), the events are up again.
    const gw = testGateway(envWith(), own);
    try {
      const res = await request(gw.app).get('/api/health');
      expect(res.body).toEqual(shape('healthy', up, allUp()));
    } finally {
      await gw.close();
    }
  });

  it('healthy (200) while events wait that nothing failed to publish: up, with their age', async () => {
    const events = await waitingEvents([{ ageSeconds: 3 }]);
    const gw = testGateway(envWith(), own);
    try {
      const res = await request(gw.app).get('/api/health');

      expect(res.status).toBe(200);
      expect(res.body.status).toBe('healthy');
      expect(res.body.checks.events).toEqual({
        status: 'up',
        oldestUnpublishedAgeSeconds: expect.any(Number),
      });
      expect(res.body.checks.events.oldestUnpublishedAgeSeconds).toBeGreaterThanOrEqual(3);
    } finally {
      await gw.close();
      await events.clear();
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
