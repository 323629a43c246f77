import request from 'supertest';
import { createServiceApp, type HealthOptions } from '@crm/shared/http';
import { captureLogger, testDb } from '@crm/shared/testing';

function appWith(health: HealthOptions) {
  return createServiceApp({ logger: captureLogger().logger, bodyLimitBytes: 1024, health });
}

const memoryShape = {
  status: 'ok',
  heapUsedBytes: expect.any(Number),
  heapLimitBytes: expect.any(Number),
  rssBytes: expect.any(Number),
};

describe('GET /health', () => {
  it('is healthy/200 with the specified shape when checkDatabase resolves', async () => {
    const checkDatabase = jest.fn(async () => undefined);
    const res = await request(appWith({ version: '1.4.2', checkDatabase })).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'healthy',
      version: '1.4.2',
      uptime: expect.any(Number),
      checks: {
        database: { status: 'up', latencyMs: expect.any(Number) },
        memory: memoryShape,
      },
    });
    expect(Object.keys(res.body).sort()).toEqual(['checks', 'status', 'uptime', 'version']);
    expect(Object.keys(res.body.checks).sort()).toEqual(['database', 'memory']);
    expect(res.body.uptime).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(res.body.uptime)).toBe(true);
    expect(res.body.checks.memory.heapUsedBytes).toBeGreaterThan(0);
    expect(res.body.checks.memory.heapLimitBytes).toBeGreaterThan(
      res.body.checks.memory.heapUsedBytes,
    );
    expect(checkDatabase).toHaveBeenCalledTimes(1);
  });

  it('is unhealthy/503 with the database down when checkDatabase rejects', async () => {
    const checkDatabase = async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
    };
    const res = await request(appWith({ version: '1.4.2', checkDatabase })).get('/health');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: 'unhealthy',
      version: '1.4.2',
      uptime: expect.any(Number),
      checks: { database: { status: 'down', latencyMs: null }, memory: memoryShape },
    });
    expect(res.text).not.toContain('ECONNREFUSED');
  });

  it('is unhealthy/503 when checkDatabase throws synchronously', async () => {
    const checkDatabase = (): Promise<void> => {
      throw new Error('pool is closed');
    };
    const res = await request(appWith({ version: 'v', checkDatabase })).get('/health');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('unhealthy');
    expect(res.body.checks.database).toEqual({ status: 'down', latencyMs: null });
  });

  it('is unhealthy/503 when checkDatabase hangs past databaseTimeoutMs', async () => {
    const checkDatabase = () => new Promise<void>(() => undefined);
    const res = await request(appWith({ version: 'v', checkDatabase, databaseTimeoutMs: 50 })).get(
      '/health',
    );
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('unhealthy');
    expect(res.body.checks.database).toEqual({ status: 'down', latencyMs: null });
  });

  it('is healthy with database not_configured when there is no database check', async () => {
    const res = await request(appWith({ version: 'v' })).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('healthy');
    expect(res.body.checks.database).toEqual({ status: 'not_configured', latencyMs: null });
  });

  it('is degraded/200 (still serving) when heap use is above the configured share', async () => {
    const res = await request(
      appWith({ version: 'v', checkDatabase: async () => undefined, memoryDegradedRatio: 0 }),
    ).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('degraded');
    expect(res.body.checks.memory.status).toBe('high');
    expect(res.body.checks.database.status).toBe('up');
  });

  it('reports unhealthy rather than degraded when the database is down and memory is high', async () => {
    const res = await request(
      appWith({
        version: 'v',
        checkDatabase: () => Promise.reject(new Error('down')),
        memoryDegradedRatio: 0,
      }),
    ).get('/health');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('unhealthy');
    expect(res.body.checks.memory.status).toBe('high');
  });

  it('is up against the real test database through Db.ping', async () => {
    const database = testDb();
    try {
      const res = await request(
        appWith({ version: 'v', checkDatabase: () => database.ping() }),
      ).get('/health');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('healthy');
      expect(res.body.checks.database.status).toBe('up');
    } finally {
      await database.close();
    }
  });

  it('reports checks.events only where events are checked, degraded/200 while they are down', async () => {
    const up = { status: 'up' as const, oldestUnpublishedAgeSeconds: null };
    const down = { status: 'down' as const, oldestUnpublishedAgeSeconds: 12 };
    const checkDatabase = async () => undefined;

    const healthy = await request(
      appWith({ version: 'v', checkDatabase, checkEvents: async () => up }),
    ).get('/health');
    expect(healthy.status).toBe(200);
    expect(healthy.body.status).toBe('healthy');
    expect(healthy.body.checks.events).toEqual(up);

    const degraded = await request(
      appWith({ version: 'v', checkDatabase, checkEvents: async () => down }),
    ).get('/health');
    expect(degraded.status).toBe(200);
    expect(degraded.body.status).toBe('degraded');
    expect(degraded.body.checks.events).toEqual(down);

    const failing = await request(
      appWith({
        version: 'v',
        checkDatabase,
        checkEvents: () => {
          throw new Error('outbox unreadable');
        },
      }),
    ).get('/health');
    expect(failing.status).toBe(200);
    expect(failing.body.status).toBe('degraded');
    expect(failing.body.checks.events).toEqual({
      status: 'down',
      oldestUnpublishedAgeSeconds: null,
    });
    expect(failing.text).not.toContain('outbox unreadable');

    const databaseDown = await request(
      appWith({
        version: 'v',
        checkDatabase: () => Promise.reject(new Error('down')),
        checkEvents: async () => down,
      }),
    ).get('/health');
    expect(databaseDown.status).toBe(503);
    expect(databaseDown.body.status).toBe('unhealthy');
  });

  it('reports retention: behind is degraded (200); a failing or hanging check is unknown', async () => {
    const checkDatabase = async () => undefined;
    const lag = {
      table: 'event_outbox',
      policy: 'RETENTION_PUBLISHED_EVENTS_DAYS',
      oldestAgeSeconds: 700_000,
      keepSeconds: 604_800,
    };
    const behind = await request(
      appWith({
        version: 'v',
        checkDatabase,
        checkRetention: async () => ({ status: 'behind', behind: [lag] }),
      }),
    ).get('/health');
    expect(behind.status).toBe(200);
    expect(behind.body).toMatchObject({
      status: 'degraded',
      checks: { database: { status: 'up' }, retention: { status: 'behind', behind: [lag] } },
    });
    const ok = await request(
      appWith({
        version: 'v',
        checkDatabase,
        checkRetention: async () => ({ status: 'ok', behind: [] }),
      }),
    ).get('/health');
    expect(ok.body).toMatchObject({ status: 'healthy', checks: { retention: { status: 'ok' } } });
    for (const checkRetention of [
      () => Promise.reject(new Error('relation does not exist')),
      () => new Promise<never>(() => undefined),
    ]) {
      const res = await request(
        appWith({ version: 'v', checkDatabase, checkRetention, databaseTimeoutMs: 100 }),
      ).get('/health');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'healthy',
        checks: { retention: { status: 'unknown', behind: [] } },
      });
    }
  });

  it('is not shadowed by the JSON body parser or the 404 handler', async () => {
    const res = await request(appWith({ version: 'v' }))
      .get('/health')
      .set('content-type', 'application/json')
      .send('{not json');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('healthy');
  });
});
