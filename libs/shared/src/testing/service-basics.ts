import request from 'supertest';
import { InProcessBus } from '../events/in-process-bus';
import { loadConfig } from '../config';
import type { AppDeps, ServiceDefinition } from '../service/service-definition';
import { captureLogger } from './capture-logger';
import { testDb } from './fixtures';

export const TEST_INTERNAL_TOKEN_SECRET = 'test-internal-token-secret-0123456789abcdef';

/** AppDeps on the test database and an in-process bus; override what a test needs. */
export function testAppDeps(
  overrides: Partial<AppDeps> = {},
): AppDeps & { closeAll(): Promise<void> } {
  const database = testDb();
  const bus = new InProcessBus({ logger: captureLogger().logger });
  return {
    logger: captureLogger().logger,
    db: database.db,
    pool: database.pool,
    pingDatabase: database.ping,
    bus,
    version: '1.2.3-test',
    internalTokenSecret: TEST_INTERNAL_TOKEN_SECRET,
    bodyLimitBytes: 1_048_576,
    ...overrides,
    closeAll: async () => {
      await bus.close();
      await database.close();
    },
  };
}

/**
 * What every service must do whatever its capability: answer its internal health probe
 * (the specified health shape) and render unknown routes as the 404 envelope.
 */
export function describeServiceBasics(service: ServiceDefinition): void {
  describe(`${service.name}: health and unknown routes`, () => {
    const deps = testAppDeps();
    const config = loadConfig(service.name, service.configSchema, {});
    const app = service.createApp(deps, config);
    afterAll(() => deps.closeAll());

    it('GET /health answers 200 healthy with version, uptime, database and memory checks', async () => {
      const res = await request(app).get('/health');
      expect(res.status).toBe(200);
      // A service that sweeps reports its retention too. On the run's shared database, other
      // files' rows may be past a policy (nothing sweeps it): that is `degraded`, not down.
      const retention = res.body.checks.retention;
      expect(res.body).toEqual({
        status: retention?.status === 'behind' ? 'degraded' : 'healthy',
        version: '1.2.3-test',
        uptime: expect.any(Number),
        checks: {
          database: { status: 'up', latencyMs: expect.any(Number) },
          memory: expect.objectContaining({ status: 'ok', heapUsedBytes: expect.any(Number) }),
          ...(retention && {
            retention: {
              status: expect.stringMatching(/^(ok|behind)$/),
              behind: expect.any(Array),
            },
          }),
        },
      });
    });

    it('GET /health answers 503 unhealthy when the database does not answer', async () => {
      const down = service.createApp(
        { ...deps, pingDatabase: () => Promise.reject(new Error('connect ECONNREFUSED')) },
        config,
      );
      const res = await request(down).get('/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        status: 'unhealthy',
        checks: { database: { status: 'down', latencyMs: null } },
      });
    });

    it('answers an unknown route with 404 NOT_FOUND in the failure envelope, with a request id', async () => {
      const res = await request(app).post('/api/does-not-exist').send({ a: 1 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: 'Not found',
        code: 'NOT_FOUND',
        message: 'No route for POST /api/does-not-exist',
        details: null,
      });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
}
