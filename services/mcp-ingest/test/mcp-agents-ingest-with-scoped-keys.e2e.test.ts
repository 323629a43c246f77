import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Db } from '@crm/shared/db';
import {
  captureLogger,
  createTenant,
  outboxEvents,
  sessionClient,
  tenantRowCounts,
  tenantRows,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { service } from '../src/main';

const logs = captureLogger();
const stack = useServiceBehindGateway(service, {}, { logger: logs.logger });
let db: Db;
const seenBodies: string[] = [];

beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;

async function createKey(session: Session, scopes: string[], extra: Record<string, unknown> = {}) {
  const res = await sessionClient(stack.url, session.cookie).post('/api/mcp/keys', {
    name: 'agent',
    scopes,
    ...extra,
  });
  seenBodies.push(JSON.stringify(res.body));
  expect(res.status).toBe(201);
  return res.body.data as { key: { id: string; prefix: string }; api_key: string };
}

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  return client;
}

interface IngestOutput {
  imported: number;
  failed: number;
  errors: Array<{ index: number; error: string }>;
  ids: string[];
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  seenBodies.push(JSON.stringify(result));
  return result as {
    structuredContent?: IngestOutput;
    content: Array<{ text: string }>;
    isError?: boolean;
  };
}

describe('MCP ingest keys (/api/mcp/keys)', () => {
  it('creates a key shown once, stores only its hash, lists it without secret, revokes it', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const { key, api_key } = await createKey(owner, ['mcp:ingest:leads']);
    expect(api_key).toMatch(/^crm_mcp_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ name: 'agent', scopes: ['mcp:ingest:leads'], revoked_at: null });
    expect(api_key.startsWith(key.prefix)).toBe(true);
    const { rows } = await sql<{
      key_hash: string;
    }>`SELECT key_hash FROM mcp_keys WHERE id = ${key.id}`.execute(db.db);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].key_hash).not.toContain(api_key);

    const list = await sessionClient(stack.url, owner.cookie).get('/api/mcp/keys');
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ total: 1, page: 1, totalPages: 1 });
    expect(JSON.stringify(list.body)).not.toContain(api_key.slice(key.prefix.length));
    expect(JSON.stringify(list.body)).not.toContain(rows[0].key_hash);
    seenBodies.push(JSON.stringify(list.body));

    const revoked = await sessionClient(stack.url, owner.cookie).delete(`/api/mcp/keys/${key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.key.revoked_at).not.toBeNull();
    const refused = await request(stack.url)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${api_key}`)
      .send({});
    expect(refused.status).toBe(401);
  });

  it('refuses bad scopes (400), members and viewers may list but not create, another tenant sees 404', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const bad = await sessionClient(stack.url, owner.cookie).post('/api/mcp/keys', {
      name: 'x',
      scopes: ['mcp:ingest:everything'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    const empty = await sessionClient(stack.url, owner.cookie).post('/api/mcp/keys', {
      name: 'x',
      scopes: [],
    });
    expect(empty.status).toBe(400);
    for (const role of ['member', 'viewer'] as const) {
      const someone = await tenantSession(stack, db, role);
      expect((await sessionClient(stack.url, someone.cookie).get('/api/mcp/keys')).status).toBe(
        200,
      );
      const create = await sessionClient(stack.url, someone.cookie).post('/api/mcp/keys', {
        name: 'x',
        scopes: ['mcp:ingest:leads'],
      });
      expect(create.status).toBe(403);
    }
    const { key } = await createKey(owner, ['mcp:ingest:leads']);
    const other = await tenantSession(stack, db, 'owner');
    expect(
      (await sessionClient(stack.url, other.cookie).delete(`/api/mcp/keys/${key.id}`)).status,
    ).toBe(404);
  });
});

describe('POST /api/mcp with the SDK client through the gateway', () => {
  it('401 with WWW-Authenticate for a missing, malformed, unknown or expired key', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const { key, api_key } = await createKey(owner, ['mcp:ingest:leads']);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} };
    // RFC 6750 §3.1: no error code without a bearer credential (none, or another scheme);
    // invalid_request for a malformed one, invalid_token for one that is not valid.
    for (const [header, error] of [
      [undefined, undefined],
      ['Basic abc', undefined],
      ['Bearer', 'invalid_request'],
      ['Bearer two words', 'invalid_request'],
      ['Bearer nope', 'invalid_token'],
      [`Bearer crm_mcp_${'A'.repeat(43)}`, 'invalid_token'],
    ]) {
      const req = request(stack.url).post('/api/mcp').send(initialize);
      const res = await (header ? req.set('Authorization', header) : req);
      expect(res.status).toBe(401);
      const challenge = res.headers['www-authenticate'];
      expect(challenge).toMatch(/^Bearer realm="mcp", resource_metadata="[^"]+"/);
      if (error) expect(challenge).toContain(`error="${error}"`);
      else expect(challenge).not.toContain('error');
      expect(res.body).toMatchObject({ error: 'Unauthorized' });
    }
    await sql`UPDATE mcp_keys SET expires_at = now() - interval '1 second' WHERE id = ${key.id}`.execute(
      db.db,
    );
    const expired = await request(stack.url)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${api_key}`)
      .send(initialize);
    expect(expired.status).toBe(401);
    await expect(connect(api_key)).rejects.toThrow();
  });

  it("lists only the tools of the key's scopes, with annotations and JSON Schemas", async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const leadsOnly = await connect((await createKey(owner, ['mcp:ingest:leads'])).api_key);
    const { tools } = await leadsOnly.listTools();
    expect(tools.map((t) => t.name)).toEqual(['ingest_leads']);
    expect(tools[0]).toMatchObject({
      title: 'Ingest leads',
      annotations: { idempotentHint: true, destructiveHint: false, openWorldHint: false },
      inputSchema: { type: 'object', properties: { records: { type: 'array', maxItems: 1000 } } },
    });
    expect(JSON.stringify(tools[0].inputSchema)).toContain('email');
    expect(tools[0].outputSchema).toMatchObject({
      properties: { imported: {}, failed: {}, errors: {}, ids: {} },
    });
    await leadsOnly.close();
    const all = await connect(
      (
        await createKey(owner, [
          'mcp:ingest:leads',
          'mcp:ingest:contacts',
          'mcp:ingest:products',
          'mcp:ingest:messaging',
        ])
      ).api_key,
    );
    expect((await all.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'ingest_chat_conversations',
      'ingest_chat_messages',
      'ingest_contacts',
      'ingest_leads',
      'ingest_products',
    ]);
    await all.close();
  });

  it('ingest_leads: same rules as the import, per-record errors, re-send updates, tenant_id ignored, events', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const victim = await createTenant(db);
    const client = await connect((await createKey(owner, ['mcp:ingest:leads'])).api_key);
    const first = await call(client, 'ingest_leads', {
      tenant_id: victim.id,
      records: [
        { email: 'Ann@Example.com', first_name: 'Ann', company: 'Acme', tenant_id: victim.id },
        { first_name: 'No email' },
        { email: 'bob@example.com', status: 'won' },
      ],
    });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ imported: 1, failed: 2 });
    expect(first.structuredContent?.errors.map((e) => e.index)).toEqual([1, 2]);
    expect(first.structuredContent?.errors[0].error).toBe('Email is required');
    expect(first.structuredContent?.errors[1].error).toBe(
      'Invalid status "won"; one of: new, contacted, qualified, unqualified, converted, lost',
    );
    expect(first.content[0].text).toBe('ingest_leads: 1 stored, 2 refused (see errors)');
    const again = await call(client, 'ingest_leads', {
      records: [{ email: 'ann@example.com', last_name: 'Lee' }],
    });
    expect(again.structuredContent?.ids).toEqual(first.structuredContent?.ids);
    const leads = await tenantRows(db, 'crm_leads', owner.tenantId);
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({
      email: 'ann@example.com',
      first_name: 'Ann',
      last_name: 'Lee',
      custom_fields: { company: 'Acme' },
    });
    expect(Object.values(await tenantRowCounts(db, victim.id)).every((n) => n === 0)).toBe(true);
    expect((await outboxEvents(db, owner.tenantId)).map((e) => e.type)).toEqual([
      'lead.created',
      'lead.updated',
    ]);
    await client.close();
  });

  it('a leads-only key cannot ingest products: a tool error naming the scope, nothing written', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const client = await connect((await createKey(owner, ['mcp:ingest:leads'])).api_key);
    const before = await tenantRowCounts(db, owner.tenantId);
    const result = await call(client, 'ingest_products', { records: [{ sku: 'S-1' }] });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('mcp:ingest:products');
    expect(await tenantRowCounts(db, owner.tenantId)).toEqual(before);
    await client.close();
  });

  it('contacts, products, conversations and messages land in the shared tables without duplicates', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const client = await connect(
      (
        await createKey(owner, [
          'mcp:ingest:contacts',
          'mcp:ingest:products',
          'mcp:ingest:messaging',
        ])
      ).api_key,
    );
    const contacts = {
      records: [
        { external_id: 'c-1', email: 'Cat@Example.com', first_name: 'Cat' },
        { first_name: 'nothing' },
      ],
    };
    expect((await call(client, 'ingest_contacts', contacts)).structuredContent).toMatchObject({
      imported: 1,
      failed: 1,
    });
    await call(client, 'ingest_contacts', contacts);
    expect(await tenantRows(db, 'crm_contacts', owner.tenantId)).toHaveLength(1);

    const products = {
      records: [{ sku: 'SKU-1', name: 'Widget', price: '19.90', currency: 'EUR' }],
    };
    await call(client, 'ingest_products', products);
    await call(client, 'ingest_products', products);
    const storedProducts = await tenantRows(db, 'crm_products', owner.tenantId);
    expect(storedProducts).toHaveLength(1);
    expect(storedProducts[0].price).toBe('19.90');

    const convo = await call(client, 'ingest_chat_conversations', {
      records: [
        {
          external_id: 'conv-1',
          contact_email: 'cat@example.com',
          subject: 'Order',
          status: 'open',
        },
      ],
    });
    expect(convo.structuredContent).toMatchObject({ imported: 1, failed: 0 });
    const messages = {
      records: [
        {
          conversation_external_id: 'conv-1',
          external_id: 'm-1',
          direction: 'inbound',
          body: 'Hi',
        },
        { conversation_external_id: 'unknown', external_id: 'm-2', body: 'Lost' },
      ],
    };
    const sent = await call(client, 'ingest_chat_messages', messages);
    expect(sent.structuredContent).toMatchObject({ imported: 1, failed: 1 });
    expect(sent.structuredContent?.errors[0].index).toBe(1);
    await call(client, 'ingest_chat_messages', messages);
    expect(await tenantRows(db, 'chat_messages', owner.tenantId)).toHaveLength(1);
    const types = (await outboxEvents(db, owner.tenantId)).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'contact.created',
        'product.created',
        'conversation.created',
        'message.received',
      ]),
    );
    expect(types.filter((t) => t === 'message.received')).toHaveLength(1);
    await client.close();
  });

  it('arguments that fail the schema answer the SDK validation error; a non-JSON-RPC body the transport error', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const { api_key } = await createKey(owner, ['mcp:ingest:leads']);
    const client = await connect(api_key);
    const result = await call(client, 'ingest_leads', { records: [] });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/validation/i);
    await client.close();
    const notRpc = await request(stack.url)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${api_key}`)
      .set('Accept', 'application/json, text/event-stream')
      .send({ hello: 'world' });
    expect(notRpc.status).toBeGreaterThanOrEqual(400);
    expect(notRpc.status).toBeLessThan(500);
    expect(notRpc.body).toMatchObject({ jsonrpc: '2.0', error: {} });
    // GET and DELETE: 405 with a valid credential, the 401 without one.
    for (const method of ['get', 'delete'] as const) {
      const send = () => request(stack.url)[method]('/api/mcp');
      const allowed = await send().set('Authorization', `Bearer ${api_key}`);
      expect(allowed.status).toBe(405);
      expect(allowed.headers.allow).toBe('POST');
      const anonymous = await send();
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer realm="mcp"/);
    }
  });

  it('no response body or log line holds the key, but its one creation answer', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const creation = seenBodies.length;
    const { key, api_key } = await createKey(owner, ['mcp:ingest:leads']);
    const client = await connect(api_key);
    await call(client, 'ingest_leads', { records: [{ email: `${randomUUID()}@example.com` }] });
    await call(client, 'ingest_products', { records: [{ sku: 'x' }] });
    await client.close();
    seenBodies.push(
      JSON.stringify((await sessionClient(stack.url, owner.cookie).get('/api/mcp/keys')).body),
    );
    seenBodies.push(
      JSON.stringify(
        (await sessionClient(stack.url, owner.cookie).delete(`/api/mcp/keys/${key.id}`)).body,
      ),
    );
    const secretPart = api_key.slice('crm_mcp_'.length);
    expect(seenBodies[creation]).toContain(api_key);
    expect(seenBodies.filter((body, i) => i !== creation && body.includes(secretPart))).toEqual([]);
    expect(logs.text()).toContain(key.id);
    expect(logs.text()).not.toContain(secretPart);
  });
});
