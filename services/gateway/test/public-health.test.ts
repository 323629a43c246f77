import request from 'supertest';
import { loadConfig } from '@crm/shared/config';
import { testAppDeps } from '@crm/shared/testing';
import { service } from '../src/main';
import { startEchoService, upstreamsAt, type EchoService } from './support/gateway';

describe('gateway GET /api/health (SPEC.md, Public)', () => {
  const deps = testAppDeps();
  let echo: EchoService;
  beforeAll(async () => {
    echo = await startEchoService();
  });
  afterAll(async () => {
    await echo.close();
    await deps.closeAll();
  });

  it('answers without authentication in the SPEC health shape, plus the services map', async () => {
    const config = loadConfig('gateway', service.configSchema, upstreamsAt(echo.url));
    const app = service.createApp(deps, config);
    const res = await request(app).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'healthy',
      version: '1.2.3-test',
      checks: { database: { status: 'up' } },
    });
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
