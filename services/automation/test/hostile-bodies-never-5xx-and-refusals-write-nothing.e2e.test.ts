import {
  tenantSession,
  testDb,
  useServiceBehindGateway,
  sendFuzzedRequest,
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
 * Automation's JSON routes (property-based, seeded), through the real gateway with a real
 * session: whatever body is sent, never a 5xx, and a refused (4xx) request leaves every tenant
 * table as it was. Saved webhook URLs point at a public name (example.com, reserved for
 * documentation), so the valid body is accepted; the workflow the test-run route fuzzes points
 * at loopback, saved through a stack with the allow-flag on, and the SSRF guard (on in the
 * stack under test) refuses it before any connection.
 */
const database = testDb();
const stack = useServiceBehindGateway(service);
const allowingPrivateTargets = useServiceBehindGateway(service, {
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
});
afterAll(() => database.close());

let owner: Awaited<ReturnType<typeof tenantSession>>;
let workflowId: string;
let loopbackWorkflowId: string;

const workflow = {
  name: 'Fuzzed',
  enabled: true,
  trigger: { event: 'lead.*', conditions: [{ field: 'status', op: 'equals', value: 'new' }] },
  nodes: [
    {
      type: 'webhook',
      name: 'n',
      config: { url: 'https://hooks.example.com/x', method: 'POST', headers: { 'X-A': 'b' } },
    },
  ],
};
const loopbackWorkflow = {
  ...workflow,
  nodes: [{ ...workflow.nodes[0], config: { url: 'http://127.0.0.1:9/x', method: 'POST' } }],
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

async function createWorkflow(url: string, body: unknown): Promise<string> {
  const res = await request(url)
    .post('/api/automations/workflows')
    .set('Cookie', owner.cookie)
    .send(body as object);
  expect(res.status).toBe(201);
  return res.body.data.workflow.id;
}

beforeAll(async () => {
  owner = await tenantSession(stack, database, 'owner');
  workflowId = await createWorkflow(stack.url, workflow);
  loopbackWorkflowId = await createWorkflow(allowingPrivateTargets.url, loopbackWorkflow);
});

const send = (req: FuzzedRequest) =>
  sendFuzzedRequest(stack.url, req, () => tenantRowCounts(database, owner.tenantId));

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
      () => `/api/automations/workflows/${loopbackWorkflowId}/test`,
      { module: 'leads', record: { id: 'r1', status: 'new' } },
      [['module'], ['record'], ['record', 'id'], ['record', 'status']],
      [[], ['record']],
    ),
    fuzzOptions(40),
  );
});
