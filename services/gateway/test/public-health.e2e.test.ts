import request from 'supertest';
import { loadConfig } from '@crm/shared/config';
import type { Db } from '@crm/shared/db';
import {
  type EchoService,
  isolatedTestDb,
  startEchoService,
  testAppDeps,
  upstreamsAt,
} from '@crm/test-kit';
import { service } from '../src/main';

describe('gateway GET /api/health (public)', () => {
  let deps: ReturnType<typeof testAppDeps>;
  // Its own database: the shared one holds other tests' unpublished events.
  let database: Db;
  let echo: EchoService;
  beforeAll(async () => {
    echo = await startEchoService();
    database = await isolatedTestDb();
    deps = testAppDeps({ db: database.db, pool: database.pool, pingDatabase: database.ping });
  });
  afterAll(async () => {
    await echo.close();
    await deps.closeAll();
    await database.close();
  });

  it('answers without authentication in the health shape, plus events, retention and the services map', async () => {
    const config = loadConfig('gateway', service.configSchema, upstreamsAt(echo.url));
    const app = service.createApp(deps, config);
    const res = await request(app).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'healthy',
      version: '1.2.3-test',
      checks: {
        database: { status: 'up' },
        events: { status: 'up', oldestUnpublishedAgeSeconds: null },
        retention: { status: 'ok', behind: [] },
      },
    });
    expect(Object.keys(res.body.checks).sort()).toEqual([
      'database',
      'events',
      'memory',
      'retention',
    ]);
    expect(Object.keys(res.body).sort()).toEqual([
      'checks',
      'services',
      'status',
      'uptime',
      'version',
    ]);
  });

  it('shares one check among callers within a second, so the public probe cannot fan out load', async () => {
    const config = loadConfig('gateway', service.configSchema, upstreamsAt(echo.url));
    const app = service.createApp(deps, config);
    echo.received.length = 0;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => request(app).get('/api/health')),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    // One probe of each of the five upstreams (all pointed at this echo), not fifty.
    expect(echo.received.filter((r) => r.url === '/health')).toHaveLength(5);
  });
});
