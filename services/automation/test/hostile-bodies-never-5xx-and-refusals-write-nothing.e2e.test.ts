import {
  tenantSession,
  testDb,
  useServiceBehindGateway,
  expectHandled,
  fuzzOptions,
  hostileBody,
  hostileHeaders,
  type BodyPath,
  type FuzzedRequest,
  type HostileBody,
  tenantRowCounts,
} from '@crm/test-kit';
import fc from 'fast-check';
import request from 'supertest';
import { service } from '../src/main';

/**
 * Issue 9, item 6 for automation's JSON routes (property-based, seeded), through the real
 * gateway with a real session: whatever body is sent, never a 5xx, and a refused (4xx) request
 * leaves every tenant table as it was. Webhook URLs point at loopback, which the SSRF guard (on
 * here) refuses before any connection.
 */
const database = testDb();
const stack = useServiceBehindGateway(service);
afterAll(() => database.close());

let owner: Awaited<ReturnType<typeof tenantSession>>;
let workflowId: string;

const workflow = {
  name: 'Fuzzed',
  enabled: true,
  trigger: { event: 'lead.*', conditions: [{ field: 'status', op: 'equals', value: 'new' }] },
  nodes: [
    {
      type: 'webhook',
      name: 'n',
      config: { url: 'http://127.0.0.1:9/x', method: 'POST', headers: { 'X-A': 'b' } },
    },
  ],
};
const workflowPaths: BodyPath[] = [
  ['name'],
  ['enabled'],
  ['trigger'],
  ['trigger', 'event'],
  ['trigger', 'conditions'],
  ['trigger', 'conditions', 0],
  ['trigger', 'conditions', 0, 'field'],
  ['trigger', 'conditions', 0, 'op'],
  ['trigger', 'conditions', 0, 'value'],
  ['nodes'],
  ['nodes', 0],
  ['nodes', 0, 'type'],
  ['nodes', 0, 'name'],
  ['nodes', 0, 'config'],
  ['nodes', 0, 'config', 'url'],
  ['nodes', 0, 'config', 'method'],
  ['nodes', 0, 'config', 'headers'],
  ['nodes', 0, 'config', 'headers', 'X-A'],
];
const workflowObjects: BodyPath[] = [
  [],
  ['trigger'],
  ['nodes', 0],
  ['nodes', 0, 'config'],
  ['nodes', 0, 'config', 'headers'],
];

beforeAll(async () => {
  owner = await tenantSession(stack, database, 'owner');
  const res = await request(stack.url)
    .post('/api/automations/workflows')
    .set('Cookie', owner.cookie)
    .send(workflow);
  expect(res.status).toBe(201);
  workflowId = res.body.data.workflow.id;
});

async function send(req: FuzzedRequest) {
  const before = await tenantRowCounts(database, owner.tenantId);
  let call = request(stack.url)[req.method.toLowerCase() as 'post'](req.path);
  for (const [name, value] of Object.entries(req.headers ?? {})) call = call.set(name, value);
  if (req.body) {
    if (req.body.contentType) call = call.set('content-type', req.body.contentType);
    call = call.send(req.body.text);
  }
  const res = await call;
  expectHandled(req, res, { before, after: await tenantRowCounts(database, owner.tenantId) });
}

function property(
  method: string,
  path: () => string,
  valid: unknown,
  paths: BodyPath[],
  objects: BodyPath[],
) {
  const headers = fc.oneof(
    { weight: 3, arbitrary: fc.constant({ cookie: owner.cookie }) },
    { weight: 1, arbitrary: hostileHeaders(owner.cookie) },
  );
  return fc.asyncProperty(
    hostileBody(valid, paths, objects),
    headers,
    async (body: HostileBody, hdrs: Record<string, string>) =>
      send({ method, path: path(), headers: hdrs, body }),
  );
}

it('POST /api/automations/workflows', async () => {
  await fc.assert(
    property('POST', () => '/api/automations/workflows', workflow, workflowPaths, workflowObjects),
    fuzzOptions(60),
  );
});

it('PATCH /api/automations/workflows/:id', async () => {
  await fc.assert(
    property(
      'PATCH',
      () => `/api/automations/workflows/${workflowId}`,
      workflow,
      workflowPaths,
      workflowObjects,
    ),
    fuzzOptions(60),
  );
});

it('POST /api/automations/workflows/:id/test', async () => {
  await fc.assert(
    property(
      'POST',
      () => `/api/automations/workflows/${workflowId}/test`,
      { module: 'leads', record: { id: 'r1', status: 'new' } },
      [['module'], ['record'], ['record', 'id'], ['record', 'status']],
      [[], ['record']],
    ),
    fuzzOptions(40),
  );
});
