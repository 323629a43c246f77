import request from 'supertest';
import { loadConfig } from '@crm/shared/config';
import { testAppDeps } from '@crm/shared/testing';
import { service } from '../src/main';

describe('gateway GET /api/health (SPEC.md, Public)', () => {
  const deps = testAppDeps();
  afterAll(() => deps.closeAll());

  it('answers without authentication in the SPEC health shape', async () => {
    const app = service.createApp(deps, loadConfig('gateway', service.configSchema, {}));
    const res = await request(app).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'healthy',
      version: '1.2.3-test',
      checks: { database: { status: 'up' } },
    });
    expect(Object.keys(res.body).sort()).toEqual(['checks', 'status', 'uptime', 'version']);
  });
});
