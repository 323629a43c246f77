import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  sessionClient,
  signIn,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { service } from '../src/main';

/**
 * Workflows under /api/automations/workflows through a real gateway in
 * front of a real automation service. Every write is checked in the database, every refusal
 * for writing nothing; the signing secret is shown on creation and rotation only.
 */
const database = testDb();
const stack = useServiceBehindGateway(service);
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;
const api = (session: { cookie: string }) => sessionClient(stack.url, session.cookie);

const WEBHOOK = {
  type: 'webhook',
  name: 'notify',
  config: { url: 'https://example.com/hook', method: 'POST', headers: { 'X-Team': 'sales' } },
};
const VALID = {
  name: 'New leads to the sales hook',
  trigger: { event: 'lead.created', conditions: [{ field: 'status', op: 'equals', value: 'new' }] },
  nodes: [WEBHOOK],
};

function rowsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('automation_workflows')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .execute(),
  );
}

describe('POST /api/automations/workflows', () => {
  let owner: Session;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
  });

  it('creates -> 201 with data.workflow and data.signing_secret (whsec_), secret sealed at rest', async () => {
    const res = await api(owner).post('/api/automations/workflows', VALID);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Workflow created',
      data: {
        workflow: {
          id: expect.any(String),
          name: VALID.name,
          enabled: true,
          trigger: VALID.trigger,
          nodes: [WEBHOOK],
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      },
    });
    const [row] = await rowsOf(owner.tenantId);
    expect(row.id).toBe(res.body.data.workflow.id);
    expect(row.signing_secret_sealed).toMatch(/^v1\./);
    expect(row.signing_secret_sealed).not.toContain(res.body.data.signing_secret.slice(6));
  });

  it('accepts a wildcard trigger and the four methods; defaults conditions to []', async () => {
    const res = await api(owner).post('/api/automations/workflows', {
      name: 'Any lead',
      enabled: false,
      trigger: { event: 'lead.*' },
      nodes: ['GET', 'POST', 'PUT', 'PATCH'].map((method) => ({
        type: 'webhook',
        config: { url: 'http://example.com/x', method },
      })),
    });
    expect(res.status).toBe(201);
    expect(res.body.data.workflow).toMatchObject({
      enabled: false,
      trigger: { event: 'lead.*', conditions: [] },
    });
  });

  const refused: Array<[string, unknown, RegExp]> = [
    ['a URL that is not http(s)', { url: 'ftp://example.com/x', method: 'POST' }, /http or https/],
    ['a URL with credentials', { url: 'https://u:p@example.com/x', method: 'POST' }, /credentials/],
    ['a relative URL', { url: '/hook', method: 'POST' }, /absolute/],
    [
      'a method outside the four',
      { url: 'https://example.com', method: 'DELETE' },
      /GET, POST, PUT, PATCH/,
    ],
    [
      'headers that are not an object',
      { url: 'https://example.com', method: 'POST', headers: ['a'] },
      /object/,
    ],
    [
      'a header value that is not a string',
      { url: 'https://example.com', method: 'POST', headers: { a: 1 } },
      /strings/,
    ],
    [
      'an invalid header name',
      { url: 'https://example.com', method: 'POST', headers: { 'a b': 'x' } },
      /invalid header name/,
    ],
    ['Host', { url: 'https://example.com', method: 'POST', headers: { Host: 'x' } }, /reserved/],
    [
      'Content-Length',
      { url: 'https://example.com', method: 'POST', headers: { 'content-length': '1' } },
      /reserved/,
    ],
    [
      'Transfer-Encoding',
      { url: 'https://example.com', method: 'POST', headers: { 'Transfer-Encoding': 'x' } },
      /reserved/,
    ],
    [
      'Connection',
      { url: 'https://example.com', method: 'POST', headers: { Connection: 'x' } },
      /reserved/,
    ],
    [
      'webhook-signature',
      { url: 'https://example.com', method: 'POST', headers: { 'Webhook-Signature': 'x' } },
      /reserved/,
    ],
  ];
  it.each(refused)(
    'refuses %s -> 400 VALIDATION_ERROR, nothing written',
    async (_what, config, message) => {
      const before = (await rowsOf(owner.tenantId)).length;
      const res = await api(owner).post('/api/automations/workflows', {
        ...VALID,
        nodes: [{ type: 'webhook', config }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(res.body.message).toMatch(message);
      expect(await rowsOf(owner.tenantId)).toHaveLength(before);
    },
  );

  it.each([
    ['an empty node list', { ...VALID, nodes: [] }, /at least one node/],
    ['more than 20 nodes', { ...VALID, nodes: Array(21).fill(WEBHOOK) }, /at most 20 nodes/],
    ['an unknown node type', { ...VALID, nodes: [{ type: 'email', config: {} }] }, /node type/],
    [
      'an event type the platform does not emit',
      { ...VALID, trigger: { event: 'lead.exploded' } },
      /trigger.event/,
    ],
    [
      'an unknown condition op',
      {
        ...VALID,
        trigger: { event: 'lead.created', conditions: [{ field: 'status', op: 'gt', value: 1 }] },
      },
      /op must be one of/,
    ],
    ['a missing name', { ...VALID, name: '' }, /name is required/],
  ])('refuses %s -> 400 VALIDATION_ERROR', async (_what, body, message) => {
    const before = (await rowsOf(owner.tenantId)).length;
    const res = await api(owner).post('/api/automations/workflows', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.message).toMatch(message);
    expect(await rowsOf(owner.tenantId)).toHaveLength(before);
  });
});

describe('reading, changing, deleting and rotating', () => {
  let owner: Session;
  let other: Session;
  let viewerCookie: string;
  let id: string;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    other = await tenantSession(stack, database, 'owner');
    const viewer = await createAccount(database, 'viewer');
    await addMember(database, owner.tenantId, viewer.id, 'viewer');
    viewerCookie = await signIn(stack.gateway.app, viewer.email);
    for (const name of ['first', 'second', 'third']) {
      const res = await api(owner).post('/api/automations/workflows', { ...VALID, name });
      id = res.body.data.workflow.id;
    }
  });

  it('lists with the page helper, never with a secret', async () => {
    const res = await api(owner).get(
      '/api/automations/workflows?page=1&pageSize=2&sortBy=name&sortOrder=asc',
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 1, pageSize: 2, totalPages: 2 });
    expect(res.body.items.map((w: { name: string }) => w.name)).toEqual(['first', 'second']);
    expect(JSON.stringify(res.body)).not.toMatch(/secret/);
  });

  it('reads one; a viewer reads too; another tenant gets 404', async () => {
    const res = await api(owner).get(`/api/automations/workflows/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.workflow).toMatchObject({ id, name: 'third' });
    expect(res.body.data).not.toHaveProperty('signing_secret');
    expect(
      (await api({ cookie: viewerCookie }).get(`/api/automations/workflows/${id}`)).status,
    ).toBe(200);
    const foreign = await api(other).get(`/api/automations/workflows/${id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'NOT_FOUND', message: 'Workflow not found' });
    expect((await api(owner).get('/api/automations/workflows/not-a-uuid')).status).toBe(404);
  });

  it('PATCH changes any field; another tenant cannot (404) and nothing changes', async () => {
    const res = await api(owner).patch(`/api/automations/workflows/${id}`, {
      enabled: false,
      trigger: { event: 'deal.*' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.workflow).toMatchObject({
      enabled: false,
      trigger: { event: 'deal.*', conditions: [] },
      name: 'third',
    });
    expect((await api(other).patch(`/api/automations/workflows/${id}`, { name: 'x' })).status).toBe(
      404,
    );
    expect((await api(owner).patch(`/api/automations/workflows/${id}`, {})).status).toBe(400);
    const row = (await rowsOf(owner.tenantId)).find((r) => r.id === id);
    expect(row).toMatchObject({ name: 'third', enabled: false, trigger_event: 'deal.*' });
  });

  it('viewers read only: every write is 403 FORBIDDEN and writes nothing', async () => {
    const viewer = api({ cookie: viewerCookie });
    const before = await rowsOf(owner.tenantId);
    for (const res of [
      await viewer.post('/api/automations/workflows', VALID),
      await viewer.patch(`/api/automations/workflows/${id}`, { name: 'v' }),
      await viewer.delete(`/api/automations/workflows/${id}`),
      await viewer.post(`/api/automations/workflows/${id}/rotate-secret`, {}),
      await viewer.post(`/api/automations/workflows/${id}/test`, {}),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    }
    expect(await rowsOf(owner.tenantId)).toEqual(before);
  });

  it('rotate-secret answers a new secret once and re-seals it', async () => {
    const [before] = (await rowsOf(owner.tenantId)).filter((r) => r.id === id);
    const res = await api(owner).post(`/api/automations/workflows/${id}/rotate-secret`, {});
    expect(res.status).toBe(200);
    expect(res.body.data.signing_secret).toMatch(/^whsec_/);
    expect(res.body.data.workflow.id).toBe(id);
    const [after] = (await rowsOf(owner.tenantId)).filter((r) => r.id === id);
    expect(after.signing_secret_sealed).not.toBe(before.signing_secret_sealed);
    expect(
      (await api(other).post(`/api/automations/workflows/${id}/rotate-secret`, {})).status,
    ).toBe(404);
  });

  it('DELETE removes it; again (or from another tenant) is 404', async () => {
    expect((await api(other).delete(`/api/automations/workflows/${id}`)).status).toBe(404);
    const res = await api(owner).delete(`/api/automations/workflows/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id });
    expect((await rowsOf(owner.tenantId)).map((r) => r.id)).not.toContain(id);
    expect((await api(owner).delete(`/api/automations/workflows/${id}`)).status).toBe(404);
  });

  it('without a session -> 401', async () => {
    expect((await api({ cookie: '' }).get('/api/automations/workflows')).status).toBe(401);
  });
});
