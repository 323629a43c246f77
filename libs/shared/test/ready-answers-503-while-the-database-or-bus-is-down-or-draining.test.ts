import request from 'supertest';
import { createServiceApp } from '@crm/shared/http';
import { captureLogger } from '@crm/shared/testing';

/*
 * GET /ready, every service's readiness probe (Kubernetes takes a pod that answers 503 out of
 * its Service, without restarting it): ready only while the database answers, the event bus is
 * connected and the process is not shutting down.
 */
function appWith(state: { database: 'up' | 'down' | 'hangs'; bus: boolean; draining: boolean }) {
  const checkDatabase = jest.fn(async () => {
    if (state.database === 'down') throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
    if (state.database === 'hangs') await new Promise(() => undefined);
  });
  const app = createServiceApp({
    logger: captureLogger().logger,
    bodyLimitBytes: 1024,
    health: { version: '1.0.0', checkDatabase, databaseTimeoutMs: 100 },
    readiness: { bus: { isConnected: () => state.bus }, isDraining: () => state.draining },
  });
  return { app, checkDatabase };
}

describe('GET /ready', () => {
  it('is 200 ready while the database answers, the bus is connected and not draining', async () => {
    const { app, checkDatabase } = appWith({ database: 'up', bus: true, draining: false });
    const res = await request(app).get('/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ready',
      checks: { database: 'up', bus: 'up', draining: false },
    });
    expect(checkDatabase).toHaveBeenCalledTimes(1);
  });

  it.each([
    [
      'the database refuses',
      { database: 'down', bus: true, draining: false },
      { database: 'down', bus: 'up', draining: false },
    ],
    [
      'the database does not answer in time',
      { database: 'hangs', bus: true, draining: false },
      { database: 'down', bus: 'up', draining: false },
    ],
    [
      'NATS is disconnected',
      { database: 'up', bus: false, draining: false },
      { database: 'up', bus: 'down', draining: false },
    ],
    [
      'the process is shutting down',
      { database: 'up', bus: true, draining: true },
      { database: 'not_checked', bus: 'up', draining: true },
    ],
  ] as const)('is 503 not_ready when %s', async (_case, state, checks) => {
    const { app } = appWith({ ...state });
    const res = await request(app).get('/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not_ready', checks });
    expect(res.text).not.toContain('ECONNREFUSED');
  });

  it('follows the state from one request to the next (the probe is not cached)', async () => {
    const state = { database: 'up' as 'up' | 'down', bus: true, draining: false };
    const { app } = appWith(state);
    expect((await request(app).get('/ready')).status).toBe(200);
    state.bus = false;
    expect((await request(app).get('/ready')).status).toBe(503);
    state.bus = true;
    expect((await request(app).get('/ready')).status).toBe(200);
    state.draining = true;
    expect((await request(app).get('/ready')).status).toBe(503);
  });

  it('without bus or draining hooks follows the database alone', async () => {
    const app = createServiceApp({
      logger: captureLogger().logger,
      bodyLimitBytes: 1024,
      health: { version: '1.0.0', checkDatabase: async () => undefined },
    });
    const res = await request(app).get('/ready');
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ database: 'up', bus: 'not_configured', draining: false });
  });
});
