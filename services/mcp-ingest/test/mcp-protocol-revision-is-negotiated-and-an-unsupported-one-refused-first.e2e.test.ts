import type { Db } from '@crm/shared/db';
import {
  grantMcpAccess,
  mcpInitialize,
  postMcp,
  sessionClient,
  tenantRowCounts,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { service } from '../src/main';

/**
 * The protocol revision through the real gateway, as a raw HTTP client sends it: an initialize
 * is answered with the revision it asks for when supported, else the latest; any other request
 * naming a revision the server does not support in MCP-Protocol-Version is a 400 before any
 * other check (records bound, scopes) and before any tool runs.
 */
const PUBLIC_BASE_URL = 'https://crm.example.test';
const stack = useServiceBehindGateway(service, { PUBLIC_BASE_URL });
let db: Db;
type Session = Awaited<ReturnType<typeof tenantSession>>;
let owner: Session;
let apiKey: string;

beforeAll(async () => {
  db = testDb();
  owner = await tenantSession(stack, db, 'owner');
  const res = await sessionClient(stack.url, owner.cookie).post('/api/mcp/keys', {
    name: 'revision agent',
    scopes: ['mcp:ingest:leads'],
  });
  expect(res.status).toBe(201);
  apiKey = res.body.data.api_key as string;
});
afterAll(() => db.close());

const ingest = (name: string, records: unknown[]) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name, arguments: { records } },
});
const BOGUS = '2099-01-01';
const UNSUPPORTED = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32000,
    message: expect.stringMatching(
      new RegExp(
        `^Bad Request: Unsupported protocol version: ${BOGUS} \\(supported versions: .*2025-11-25`,
      ),
    ),
  },
};

describe('initialize negotiates the revision', () => {
  it.each([
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['1999-01-01 (unsupported)', '2025-11-25'],
  ])('asking %s is answered with %s', async (asked, answered) => {
    const res = await postMcp(stack.url, apiKey, mcpInitialize(asked.split(' ')[0]));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: answered },
    });
  });

  it('the latest is 2025-11-25, the revision this server is documented to speak', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
  });
});

describe('a request after initialize naming an unsupported revision', () => {
  it('is a 400 that writes nothing, whatever else it would have been refused for', async () => {
    const { accessToken } = await grantMcpAccess(db, owner.tenantId, {
      scopes: ['mcp:ingest:leads'],
      publicBaseUrl: PUBLIC_BASE_URL,
    });
    const before = await tenantRowCounts(db, owner.tenantId);
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ email: `many-${i}@example.com` }));
    const cases: Array<[string, string, unknown]> = [
      ['a call the key may make', apiKey, ingest('ingest_leads', [{ email: 'a@example.com' }])],
      ['a tools/list', apiKey, { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }],
      // Else a tool error (200), a 403 insufficient_scope, a 413 and a batching refusal.
      ['a call outside the key scopes', apiKey, ingest('ingest_products', [{ sku: 'S-1' }])],
      ['a call outside the token scopes', accessToken, ingest('ingest_products', [{ sku: 'S' }])],
      ['a call over the records bound', apiKey, ingest('ingest_leads', tooMany)],
      [
        'a batch',
        apiKey,
        [ingest('ingest_leads', [{ email: 'b@example.com' }]), ingest('ingest_leads', [])],
      ],
    ];
    for (const [label, credential, body] of cases) {
      const res = await postMcp(stack.url, credential, body, BOGUS);
      expect({ label, status: res.status, body: res.body }).toEqual({
        label,
        status: 400,
        body: UNSUPPORTED,
      });
    }
    expect(await tenantRowCounts(db, owner.tenantId)).toEqual(before);
    // The same call under a supported revision is stored: the refusals were the header's.
    const stored = await postMcp(
      stack.url,
      apiKey,
      ingest('ingest_leads', [{ email: 'a@example.com' }]),
      '2025-11-25',
    );
    expect(stored.status).toBe(200);
    expect(stored.body.result.structuredContent).toMatchObject({ imported: 1 });
  });

  it('an initialize is judged by its body, not by a header it should not send yet', async () => {
    const res = await postMcp(stack.url, apiKey, mcpInitialize('2025-06-18'), BOGUS);
    expect(res.status).toBe(200);
    expect(res.body.result.protocolVersion).toBe('2025-06-18');
  });

  it('a missing credential is still a 401 first', async () => {
    const res = await postMcp(stack.url, 'not-a-credential', ingest('ingest_leads', []), BOGUS);
    expect(res.status).toBe(401);
  });
});
