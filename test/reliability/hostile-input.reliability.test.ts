import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { tenantRowCounts } from '@crm/shared/testing';
import { fuzzOptions, hostileJsonText, hostileText } from '@crm/shared/testing/hostile-input';
import { ownDatabase, type OwnDatabase } from './support/database';
import { startCrmApi, type CrmApi } from './support/crm-api';
import { recordFigure, StatusTally } from './support/figures';
import { NatsServerProcess } from './support/nats-server';

/*
 * Hostile input, crm-api part: generated hostile bodies (arbitrary JSON, deep nesting,
 * odd strings) and query strings at every crm-api route, over real HTTP at the service
 * process, as an admin of a tenant. Never a 5xx, the process never dies, and a refused request
 * (4xx) writes no row of the tenant. The per-service in-process fuzzing
 * (libs/shared/src/testing/fuzz-service.ts) covers automation, migrate and mcp-ingest in
 * process; hostile-signed-input.reliability.test.ts sends signed hostile bodies at the receivers,
 * migrate and MCP as processes behind the gateway.
 */
const TEST = '5 hostile input (crm-api)';
const RUNS_PER_ROUTE = 40;

const someId = randomUUID();
const ROUTES: Array<{ method: string; path: string }> = [
  { method: 'GET', path: '/api/crm/leads' },
  { method: 'GET', path: `/api/crm/leads/${someId}` },
  { method: 'GET', path: '/api/crm/deals' },
  { method: 'GET', path: `/api/crm/deals/${someId}` },
  { method: 'POST', path: '/api/crm/deals' },
  { method: 'PATCH', path: `/api/crm/deals/${someId}` },
  { method: 'DELETE', path: `/api/crm/deals/${someId}` },
  { method: 'GET', path: '/api/crm/forms' },
  { method: 'GET', path: `/api/crm/forms/${someId}` },
  { method: 'POST', path: '/api/crm/forms' },
  { method: 'PATCH', path: `/api/crm/forms/${someId}` },
  { method: 'POST', path: '/api/exports' },
  { method: 'POST', path: '/api/v1/import/leads' },
];

const queryString = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'page',
        'pageSize',
        'sortBy',
        'sortOrder',
        'status',
        'source',
        'q',
        'limit',
        'x',
      ),
      hostileText,
    ),
    { maxLength: 4 },
  )
  .map((pairs) => new URLSearchParams(pairs).toString());

describe('hostile requests at the crm-api process', () => {
  let nats: NatsServerProcess;
  let database: OwnDatabase;
  let crmApi: CrmApi | undefined;

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    database = await ownDatabase('hostile');
    crmApi = await startCrmApi(database.db, { DATABASE_URL: database.url, NATS_URL: nats.url });
  });
  afterAll(async () => {
    await crmApi?.service.stop();
    await nats.close();
    await database.drop();
  });

  it('never answers 5xx, never crashes, and writes nothing for a refused request', async () => {
    const api = crmApi as CrmApi;
    const statuses = new StatusTally();
    let requests = 0;
    for (const route of ROUTES) {
      const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
      await fc.assert(
        fc.asyncProperty(queryString, hostileJsonText, async (query, body) => {
          const before = await tenantRowCounts(database.db, api.tenantId);
          const res = await fetch(`${api.baseUrl}${route.path}${query ? `?${query}` : ''}`, {
            method: route.method,
            headers: api.headers,
            body: hasBody ? body : undefined,
          });
          await res.arrayBuffer();
          requests++;
          statuses.add(res.status);
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) {
            expect(await tenantRowCounts(database.db, api.tenantId)).toEqual(before);
          }
        }),
        fuzzOptions(RUNS_PER_ROUTE),
      );
    }
    recordFigure(TEST, 'routes x runs', `${ROUTES.length} x ${RUNS_PER_ROUTE}`);
    recordFigure(TEST, 'requests sent', requests);
    recordFigure(TEST, 'statuses', String(statuses));
    expect(api.service.running()).toBe(true);
  });
});
