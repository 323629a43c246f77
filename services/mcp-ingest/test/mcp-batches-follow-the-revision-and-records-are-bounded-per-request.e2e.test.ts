import type { Db } from '@crm/shared/db';
import {
  mcpInitialize,
  postMcp,
  sessionClient,
  tenantRowCounts,
  tenantSession,
  testDb,
  useServiceBehindGateway,
  type ServiceStack,
} from '@crm/test-kit';
import { service } from '../src/main';

/*
 * Raw JSON-RPC over HTTP, as an agent that does not use the SDK client sends it: the SDK client
 * never batches, so only a hand-made body shows what a batch does. The bound is the default
 * (1,000 records per request) unless a describe block configures its own.
 */

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

interface Agent {
  tenantId: string;
  apiKey: string;
}

async function leadsAgent(stack: ServiceStack): Promise<Agent> {
  const owner = await tenantSession(stack, db, 'owner');
  const res = await sessionClient(stack.url, owner.cookie).post('/api/mcp/keys', {
    name: 'batch agent',
    scopes: ['mcp:ingest:leads'],
  });
  expect(res.status).toBe(201);
  return { tenantId: owner.tenantId, apiKey: res.body.data.api_key as string };
}

/** `count` leads with emails unique to `tag`, so every stored record is a new row. */
function leads(tag: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({ email: `${tag}-${i}@example.com` }));
}

function ingestCall(id: number, records: unknown[]) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'ingest_leads', arguments: { records } },
  };
}

const post = (stack: ServiceStack, agent: Agent, body: unknown, revision?: string) =>
  postMcp(stack.url, agent.apiKey, body, revision);

async function leadCount(agent: Agent): Promise<number> {
  return (await tenantRowCounts(db, agent.tenantId)).crm_leads;
}

describe('POST /api/mcp: JSON-RPC batches follow the negotiated protocol revision', () => {
  const stack = useServiceBehindGateway(service);

  it.each(['2025-06-18', '2025-11-25'])(
    'a batch under %s is refused with a JSON-RPC error (400) and writes nothing',
    async (revision) => {
      const agent = await leadsAgent(stack);
      const before = await tenantRowCounts(db, agent.tenantId);
      const res = await post(
        stack,
        agent,
        [ingestCall(1, leads(`a-${revision}`, 2)), ingestCall(2, leads(`b-${revision}`, 2))],
        revision,
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Invalid Request: batching is not supported in protocol version ${revision}`,
        },
      });
      expect(await tenantRowCounts(db, agent.tenantId)).toEqual(before);
    },
  );

  it('an initialize sent as a batch is judged by the revision it asks for', async () => {
    const agent = await leadsAgent(stack);
    const initialize = (protocolVersion: string) => [mcpInitialize(protocolVersion)];
    const refused = await post(stack, agent, initialize('2025-06-18'));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      'Invalid Request: batching is not supported in protocol version 2025-06-18',
    );
    const allowed = await post(stack, agent, initialize('2025-03-26'));
    expect(allowed.status).toBe(200);
    // The SDK answers a batch of one with its one response, not with a list of one.
    expect(allowed.body).toMatchObject({ id: 1, result: { protocolVersion: '2025-03-26' } });
  });

  it('under 2025-03-26 a batch within 1,000 records in all is answered call by call and stored', async () => {
    const agent = await leadsAgent(stack);
    const res = await post(
      stack,
      agent,
      [ingestCall(1, leads('first', 600)), ingestCall(2, leads('second', 400))],
      '2025-03-26',
    );
    expect(res.status).toBe(200);
    const answers = (res.body as Array<{ id: number; result: { structuredContent: unknown } }>)
      .slice()
      .sort((a, b) => a.id - b.id);
    expect(answers.map((a) => a.result.structuredContent)).toEqual([
      expect.objectContaining({ imported: 600, failed: 0 }),
      expect.objectContaining({ imported: 400, failed: 0 }),
    ]);
    expect(await leadCount(agent)).toBe(1000);
  });

  it.each([
    ['2025-03-26', '2025-03-26'],
    ['no MCP-Protocol-Version header (taken as 2025-03-26)', undefined],
  ])(
    'under %s a batch whose calls sum over 1,000 records is refused (413) and writes nothing',
    async (_label, revision) => {
      const agent = await leadsAgent(stack);
      const before = await tenantRowCounts(db, agent.tenantId);
      const calls = [1, 2, 3].map((id) => ingestCall(id, leads(`over-${id}`, 400)));
      const res = await post(stack, agent, calls, revision);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message:
            'Invalid Request: 1200 records in this request; at most 1000 records per request, ' +
            'counted over every tools/call in it. Nothing was written.',
        },
      });
      expect(await tenantRowCounts(db, agent.tenantId)).toEqual(before);
    },
  );

  it('a batch of many small calls is bounded by its records, not by its number of calls', async () => {
    const agent = await leadsAgent(stack);
    const before = await tenantRowCounts(db, agent.tenantId);
    const calls = Array.from({ length: 100 }, (_, id) => ingestCall(id, leads(`many-${id}`, 11)));
    const res = await post(stack, agent, calls, '2025-03-26');
    expect(res.status).toBe(413);
    expect(res.body.error.message).toContain('1100 records in this request');
    expect(await tenantRowCounts(db, agent.tenantId)).toEqual(before);
  });

  it('odd shapes are answered with a 4xx or a tool error, never a 5xx, and write nothing', async () => {
    const agent = await leadsAgent(stack);
    const before = await tenantRowCounts(db, agent.tenantId);
    const notRecords = { length: 5000 };
    const cases: Array<[unknown, string | undefined]> = [
      [[], '2025-03-26'],
      [[null, 42, 'x'], '2025-03-26'],
      [[{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: null }], '2025-03-26'],
      [[ingestCall(1, leads('odd', 1))], 'garbage'],
      [ingestCall(2, notRecords as unknown as unknown[]), '2025-06-18'],
      [
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: 'records' } },
        undefined,
      ],
    ];
    const answers = [];
    for (const [body, revision] of cases) {
      const res = await post(stack, agent, body, revision);
      answers.push({
        status: res.status,
        refusal: res.body?.error !== undefined || res.body?.result?.isError === true,
      });
    }
    // JSON-RPC 2.0 answers an empty batch Invalid Request; the SDK alone would answer 202.
    expect(answers).toEqual([
      { status: 400, refusal: true },
      { status: 400, refusal: true },
      { status: 400, refusal: true },
      { status: 400, refusal: true },
      { status: 200, refusal: true },
      { status: 200, refusal: true },
    ]);
    expect(await tenantRowCounts(db, agent.tenantId)).toEqual(before);
  });

  it('a single call of 1,000 records under 2025-06-18 is stored', async () => {
    const agent = await leadsAgent(stack);
    const res = await post(stack, agent, ingestCall(7, leads('single', 1000)), '2025-06-18');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { structuredContent: { imported: 1000, failed: 0 } },
    });
    expect(await leadCount(agent)).toBe(1000);
  });
});

describe('POST /api/mcp with MCP_MAX_RECORDS_PER_REQUEST lowered to 5', () => {
  const stack = useServiceBehindGateway(service, { MCP_MAX_RECORDS_PER_REQUEST: '5' });

  it('a single call over the configured bound is refused (413) with its id and writes nothing', async () => {
    const agent = await leadsAgent(stack);
    const before = await tenantRowCounts(db, agent.tenantId);
    const res = await post(stack, agent, ingestCall(9, leads('lowered', 6)), '2025-06-18');
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32600 } });
    expect(res.body.error.message).toContain('at most 5 records per request');
    expect(await tenantRowCounts(db, agent.tenantId)).toEqual(before);
    const within = await post(stack, agent, ingestCall(10, leads('lowered', 5)), '2025-06-18');
    expect(within.body.result.structuredContent).toMatchObject({ imported: 5 });
    expect(await leadCount(agent)).toBe(5);
  });
});
