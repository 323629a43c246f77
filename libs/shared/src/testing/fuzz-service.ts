import fc from 'fast-check';
import { loadConfig } from '../config';
import type { Db } from '../db/create-db';
import type { ServiceDefinition } from '../service/service-definition';
import { isolatedTestDb } from './fixtures';
import {
  sendFuzzedRequest,
  fuzzOptions,
  hostileBody,
  hostileHeaders,
  hostileQuery,
  type FuzzedRequest,
} from './hostile-input';
import { allRowCounts } from './row-counts';
import { testAppDeps } from './service-basics';

/**
 * The hostile-input properties for a service that so far serves only its health probe and the
 * Session prefixes it refuses without the gateway's identity: generated hostile query strings,
 * headers (forged identity headers among them) and bodies at `paths`, straight at the service.
 * Never a 5xx, and a refused request writes no row (on a database of its own).
 */
export function describeFuzzedRequests(service: ServiceDefinition, paths: string[]): void {
  describe(`${service.name}: hostile requests`, () => {
    let database: Db;
    let app: ReturnType<ServiceDefinition['createApp']>;
    let close: () => Promise<void>;
    beforeAll(async () => {
      database = await isolatedTestDb();
      const deps = testAppDeps({
        db: database.db,
        pool: database.pool,
        pingDatabase: database.ping,
      });
      app = service.createApp(deps, loadConfig(service.name, service.configSchema, {}));
      close = deps.closeAll;
    });
    afterAll(async () => {
      await close();
      await database.close();
    });

    const send = (req: FuzzedRequest) => sendFuzzedRequest(app, req, () => allRowCounts(database));

    it('query strings and headers at every path it serves', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...paths),
          fc.constantFrom('GET', 'HEAD', 'DELETE', 'OPTIONS'),
          hostileQuery([]),
          hostileHeaders(),
          async (path, method, query, headers) => send({ method, path: path + query, headers }),
        ),
        fuzzOptions(80),
      );
    });

    it('JSON bodies at every path it serves', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...paths),
          fc.constantFrom('POST', 'PUT', 'PATCH'),
          hostileBody({ name: 'x', data: { a: 1 } }, [['name'], ['data'], ['data', 'a']]),
          hostileHeaders(),
          async (path, method, body, headers) => send({ method, path, headers, body }),
        ),
        fuzzOptions(60),
      );
    });
  });
}
