import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import { sessionClient, tenantRows, tenantSession, testDb } from '@crm/test-kit';
import { TEST_PUBLIC_BASE_URL, testSecretBox, useReceiverStack } from './support/receiver-stack';
import { findPaymentConnection } from '../src/tenancy/cross-tenant-lookups';

/**
 * Admin views: payment connections through the real gateway with a session. Each
 * connection answers with its own receiver URL; its secret is required, stored sealed (it
 * opens to what was sent), rotatable, and never returned.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;
const PATH = '/api/integrations/payment-connections';

/** The resource's calls: create, read (list or `/<id>`), change and remove by id. */
function api(session: Session) {
  const client = sessionClient(stack.url, session.cookie);
  return {
    post: (body: unknown) => client.post(PATH, body),
    get: (path = '') => client.get(`${PATH}${path}`),
    patch: (id: string, body: unknown) => client.patch(`${PATH}/${id}`, body),
    delete: (id: string) => client.delete(`${PATH}/${id}`),
  };
}

const newSecret = () => `whsec_${randomUUID().replace(/-/g, '')}`;
const webhookUrl = (provider: string, id: string) =>
  `${TEST_PUBLIC_BASE_URL}/api/payments/webhook?provider=${provider}&connection=${id}`;
const connectionsOf = (tenantId: string) => tenantRows(database, 'payment_connections', tenantId);

function expectNoSecretIn(body: unknown, ...secrets: string[]) {
  const text = JSON.stringify(body);
  expect(text).not.toContain('ciphertext');
  expect(text).not.toMatch(/"v1\.[\w-]+\./);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('POST /api/integrations/payment-connections', () => {
  let owner: Session;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
  });

  it.each(['stripe', 'razorpay', 'paddle', 'lemonsqueezy'])(
    '%s -> 201 with its receiver URL; the secret is sealed and never returned',
    async (provider) => {
      const secret = newSecret();
      const res = await api(owner).post({
        provider,
        name: `${provider} live`,
        webhookSecret: secret,
      });
      expect(res.status).toBe(201);
      const id = res.body.data.connection.id;
      expect(res.body).toEqual({
        success: true,
        message: 'Payment provider connected',
        data: {
          connection: {
            id: expect.any(String),
            provider,
            name: `${provider} live`,
            hasWebhookSecret: true,
            webhookUrl: webhookUrl(provider, id),
            created_at: expect.any(String),
          },
        },
      });
      expectNoSecretIn(res.body, secret);
      const row = (await connectionsOf(owner.tenantId)).find((r) => r.id === id);
      expect(row).toMatchObject({ tenant_id: owner.tenantId, provider, name: `${provider} live` });
      expect(testSecretBox().open(row?.webhook_secret_ciphertext as string)).toBe(secret);
    },
  );

  it.each([
    ['no secret', { provider: 'stripe' }, 'webhookSecret: webhookSecret is required'],
    [
      'a null secret',
      { provider: 'stripe', webhookSecret: null },
      'webhookSecret: webhookSecret must be a string',
    ],
    [
      'an empty secret',
      { provider: 'stripe', webhookSecret: '' },
      'webhookSecret: webhookSecret must not be empty',
    ],
    [
      'a secret of 1001 characters',
      { provider: 'stripe', webhookSecret: 's'.repeat(1001) },
      'webhookSecret: webhookSecret must be at most 1000 characters',
    ],
    [
      'no provider',
      { webhookSecret: 'x' },
      'provider: provider must be one of: stripe, razorpay, paddle, lemonsqueezy',
    ],
    [
      'an unknown provider',
      { provider: 'paypal', webhookSecret: 'x' },
      'provider: provider must be one of: stripe, razorpay, paddle, lemonsqueezy',
    ],
    [
      'a name that is not a string',
      { provider: 'stripe', webhookSecret: 'x', name: 7 },
      'name: name must be a string',
    ],
    [
      'an id of its own choosing',
      { provider: 'stripe', webhookSecret: 'x', id: randomUUID() },
      'Unrecognized key: "id"',
    ],
  ])('%s -> 400 VALIDATION_ERROR, nothing stored', async (_label, body, message) => {
    const before = await connectionsOf(owner.tenantId);
    const res = await api(owner).post(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      message: `Invalid payment connection: ${message}`,
      details: { issues: expect.any(Array) },
    });
    expect(await connectionsOf(owner.tenantId)).toEqual(before);
  });

  it('two connections of one provider are two accounts, each with its own URL', async () => {
    const session = await tenantSession(stack, database, 'admin');
    const first = await api(session).post({ provider: 'stripe', webhookSecret: newSecret() });
    const second = await api(session).post({ provider: 'stripe', webhookSecret: newSecret() });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.data.connection.webhookUrl).not.toBe(second.body.data.connection.webhookUrl);
    expect(await connectionsOf(session.tenantId)).toHaveLength(2);
  });
});

describe('the receiver URL', () => {
  it('names the connection the payments receiver resolves: its tenant, provider and secret', async () => {
    const owner = await tenantSession(stack, database, 'owner');
    const secret = newSecret();
    const res = await api(owner).post({ provider: 'paddle', webhookSecret: secret });
    expect(res.status).toBe(201);
    const url = new URL(res.body.data.connection.webhookUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${TEST_PUBLIC_BASE_URL}/api/payments/webhook`);
    expect(url.searchParams.get('provider')).toBe('paddle');
    const found = await withSystemScope(database.db, (trx) =>
      findPaymentConnection(trx, url.searchParams.get('connection') as string),
    );
    expect(found).toEqual({
      tenantId: owner.tenantId,
      connectionId: res.body.data.connection.id,
      provider: 'paddle',
      secretCiphertext: expect.any(String),
    });
    expect(testSecretBox().open(found?.secretCiphertext as string)).toBe(secret);
  });
});

describe('GET /api/integrations/payment-connections', () => {
  let owner: Session;
  const secrets = [newSecret(), newSecret(), newSecret()];
  const ids: string[] = [];
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    const other = await tenantSession(stack, database, 'owner');
    for (const [i, provider] of (['stripe', 'paddle', 'stripe'] as const).entries()) {
      const res = await api(owner).post({ provider, webhookSecret: secrets[i] });
      expect(res.status).toBe(201);
      ids.push(res.body.data.connection.id);
    }
    expect((await api(other).post({ provider: 'stripe', webhookSecret: newSecret() })).status).toBe(
      201,
    );
  });

  it("lists the tenant's connections, newest first, each with its URL and no secret", async () => {
    const res = await api(owner).get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        {
          id: ids[2],
          provider: 'stripe',
          name: null,
          hasWebhookSecret: true,
          webhookUrl: webhookUrl('stripe', ids[2]),
          created_at: expect.any(String),
        },
        expect.objectContaining({ id: ids[1], provider: 'paddle' }),
        expect.objectContaining({ id: ids[0], provider: 'stripe' }),
      ],
      total: 3,
      page: 1,
      pageSize: 20,
      totalPages: 1,
    });
    expectNoSecretIn(res.body, ...secrets);
  });

  it('filters by provider; a bad provider -> 400', async () => {
    const stripe = await api(owner).get('?provider=stripe&sortOrder=asc');
    expect(stripe.body.items.map((c: { id: string }) => c.id)).toEqual([ids[0], ids[2]]);
    const bad = await api(owner).get('?provider=paypal');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid filters: provider: provider must be one of: stripe, razorpay, paddle, lemonsqueezy',
    });
  });

  it('reads one by id', async () => {
    const res = await api(owner).get(`/${ids[1]}`);
    expect(res.status).toBe(200);
    expect(res.body.data.connection).toEqual({
      id: ids[1],
      provider: 'paddle',
      name: null,
      hasWebhookSecret: true,
      webhookUrl: webhookUrl('paddle', ids[1]),
      created_at: expect.any(String),
    });
    expectNoSecretIn(res.body, ...secrets);
  });
});

describe('PATCH and DELETE /api/integrations/payment-connections/:id', () => {
  let owner: Session;
  let intruder: Session;
  let id: string;
  const storedRow = async () =>
    (await connectionsOf(owner.tenantId)).find((r) => r.id === id) as Record<string, unknown>;

  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    intruder = await tenantSession(stack, database, 'owner');
    const res = await api(owner).post({
      provider: 'razorpay',
      name: 'India',
      webhookSecret: newSecret(),
    });
    expect(res.status).toBe(201);
    id = res.body.data.connection.id;
  });

  it('rotates the secret -> 200; the stored ciphertext opens to the new one', async () => {
    const rotated = newSecret();
    const res = await api(owner).patch(id, { webhookSecret: rotated });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Payment connection updated',
      data: {
        connection: {
          id,
          provider: 'razorpay',
          name: 'India',
          hasWebhookSecret: true,
          webhookUrl: webhookUrl('razorpay', id),
          created_at: expect.any(String),
        },
      },
    });
    expectNoSecretIn(res.body, rotated);
    expect(testSecretBox().open((await storedRow()).webhook_secret_ciphertext as string)).toBe(
      rotated,
    );
  });

  it('renames (and clears the name with null) without touching the secret', async () => {
    const before = await storedRow();
    const renamed = await api(owner).patch(id, { name: 'India live' });
    expect(renamed.status).toBe(200);
    expect(await storedRow()).toEqual({ ...before, name: 'India live' });
    const cleared = await api(owner).patch(id, { name: null });
    expect(cleared.body.data.connection.name).toBeNull();
    expect(await storedRow()).toEqual({ ...before, name: null });
  });

  it.each([
    ['nothing to change', {}, 'give at least one field to change'],
    [
      'removing the secret',
      { webhookSecret: null },
      'webhookSecret: webhookSecret cannot be removed: payment deliveries are always verified (delete the connection instead)',
    ],
    ['a new provider', { provider: 'stripe' }, 'Unrecognized key: "provider"'],
  ])('%s -> 400 VALIDATION_ERROR, row unchanged', async (_label, body, message) => {
    const before = await storedRow();
    const res = await api(owner).patch(id, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `Invalid payment connection change: ${message}`,
    });
    expect(await storedRow()).toEqual(before);
  });

  it("another tenant's read, rotate, rename or delete -> 404; the row stays as it was", async () => {
    const before = await storedRow();
    for (const res of [
      await api(intruder).get(`/${id}`),
      await api(intruder).patch(id, { webhookSecret: newSecret() }),
      await api(intruder).patch(id, { name: 'Hijacked' }),
      await api(intruder).delete(id),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        code: 'NOT_FOUND',
        message: 'Payment connection not found',
      });
    }
    expect(await storedRow()).toEqual(before);
  });

  it('the owner deletes it -> 200 { id }; the row is gone, a second delete is 404', async () => {
    const res = await api(owner).delete(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { id },
      message: 'Payment connection removed',
    });
    expect(await connectionsOf(owner.tenantId)).toEqual([]);
    expect((await api(owner).delete(id)).status).toBe(404);
  });
});
