import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import { sessionClient, tenantRows, tenantSession, testDb } from '@crm/test-kit';
import request from 'supertest';
import { TEST_PUBLIC_BASE_URL, testSecretBox, useReceiverStack } from './support/receiver-stack';
import { normaliseShopDomain } from '../src/providers/storefront-a/storefront-a-payload';
import { normaliseSourceUrl } from '../src/providers/storefront-b/storefront-b-payload';
import { findStorefrontClaims } from '../src/tenancy/cross-tenant-lookups';

/**
 * Admin views: storefront connections (platforms A and B) through the real gateway
 * with a session. The webhook secret goes in, is stored sealed (it opens to what was sent),
 * and never comes out: no response carries it or its ciphertext.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;
const PATH = '/api/integrations/storefront-connections';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

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

const shopName = () => `shop-${randomUUID().slice(0, 8)}`;
const newSecret = () => `shpss_${randomUUID().replace(/-/g, '')}`;

/** No response may carry a secret or anything sealed. */
function expectNoSecretIn(body: unknown, ...secrets: string[]) {
  const text = JSON.stringify(body);
  expect(text).not.toContain('ciphertext');
  expect(text).not.toMatch(/"v1\.[\w-]+\./);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

const connectionsOf = (tenantId: string) =>
  tenantRows(database, 'storefront_connections', tenantId);

describe('POST /api/integrations/storefront-connections', () => {
  let owner: Session;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
  });

  it('storefront_a with a secret -> 201, domain lower-cased, secret sealed, never returned', async () => {
    const shop = shopName();
    const secret = newSecret();
    const res = await api(owner).post({
      platform: 'storefront_a',
      shop_identifier: ` ${shop.toUpperCase()}.Example.COM `,
      name: 'Main shop',
      webhookSecret: secret,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Storefront connected',
      data: {
        connection: {
          id: expect.any(String),
          platform: 'storefront_a',
          shop_identifier: `${shop}.example.com`,
          name: 'Main shop',
          hasWebhookSecret: true,
          // Pending until a delivery verified with this secret arrives.
          proven_at: null,
          status: 'pending',
          webhookUrl: `${TEST_PUBLIC_BASE_URL}/api/commerce/webhook/storefront-a`,
          created_at: expect.any(String),
        },
      },
    });
    expectNoSecretIn(res.body, secret);
    const rows = await connectionsOf(owner.tenantId);
    const row = rows.find((r) => r.id === res.body.data.connection.id);
    expect(row).toMatchObject({
      platform: 'storefront_a',
      shop_identifier: `${shop}.example.com`,
      name: 'Main shop',
    });
    expect(row?.webhook_secret_ciphertext).toEqual(expect.any(String));
    expect(row?.webhook_secret_ciphertext).not.toContain(secret);
    expect(testSecretBox().open(row?.webhook_secret_ciphertext as string)).toBe(secret);
  });

  it('storefront_b without a secret -> 201, URL as the receiver reads it (host lower-cased, no trailing slash), hasWebhookSecret false', async () => {
    const shop = shopName();
    const res = await api(owner).post({
      platform: 'storefront_b',
      shop_identifier: ` HTTPS://${shop.toUpperCase()}.Example.com:443/store// `,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.connection).toEqual({
      id: expect.any(String),
      platform: 'storefront_b',
      shop_identifier: `https://${shop}.example.com/store`,
      name: null,
      hasWebhookSecret: false,
      // Without a secret a connection is never proven.
      proven_at: null,
      status: 'unverified',
      webhookUrl: `${TEST_PUBLIC_BASE_URL}/api/commerce/webhook/storefront-b`,
      created_at: expect.any(String),
    });
    const row = (await connectionsOf(owner.tenantId)).find(
      (r) => r.id === res.body.data.connection.id,
    );
    expect(row).toMatchObject({
      shop_identifier: `https://${shop}.example.com/store`,
      webhook_secret_ciphertext: null,
    });
  });

  const A_RULE =
    'shop_identifier: for storefront_a, shop_identifier must be the shop domain, e.g. my-shop.example.com (no https://, no path)';
  const B_RULE =
    "shop_identifier: for storefront_b, shop_identifier must be the shop's http(s) URL, e.g. https://shop.example.com (at most 500 characters)";
  it.each([
    [
      'no platform',
      { shop_identifier: 'a.example.com' },
      'platform: platform must be one of: storefront_a, storefront_b',
    ],
    [
      'an unknown platform',
      { platform: 'storefront_c', shop_identifier: 'a.example.com' },
      'platform: platform must be one of: storefront_a, storefront_b',
    ],
    [
      'no shop_identifier',
      { platform: 'storefront_a' },
      'shop_identifier: shop_identifier is required',
    ],
    [
      'A: a URL instead of a domain',
      { platform: 'storefront_a', shop_identifier: 'https://a.example.com' },
      A_RULE,
    ],
    ['A: a bare word', { platform: 'storefront_a', shop_identifier: 'localhost' }, A_RULE],
    ['A: an empty identifier', { platform: 'storefront_a', shop_identifier: '' }, A_RULE],
    [
      'B: a domain instead of a URL',
      { platform: 'storefront_b', shop_identifier: 'a.example.com' },
      B_RULE,
    ],
    ['B: an ftp URL', { platform: 'storefront_b', shop_identifier: 'ftp://a.example.com' }, B_RULE],
    [
      'B: a URL with a query',
      { platform: 'storefront_b', shop_identifier: 'https://a.example.com/?x=1' },
      B_RULE,
    ],
    [
      'B: a URL with credentials',
      { platform: 'storefront_b', shop_identifier: 'https://me:pw@a.example.com' },
      B_RULE,
    ],
    [
      'B: a URL of 501 characters',
      { platform: 'storefront_b', shop_identifier: `https://a.example.com/${'p'.repeat(479)}` },
      B_RULE,
    ],
    [
      'an empty secret',
      { platform: 'storefront_a', shop_identifier: 'a.example.com', webhookSecret: '' },
      'webhookSecret: webhookSecret must not be empty',
    ],
    [
      'a secret with a trailing newline',
      { platform: 'storefront_a', shop_identifier: 'a.example.com', webhookSecret: 'abc\n' },
      'webhookSecret: webhookSecret must not start or end with whitespace',
    ],
    [
      'a secret that is not a string',
      { platform: 'storefront_a', shop_identifier: 'a.example.com', webhookSecret: 12345 },
      'webhookSecret: webhookSecret must be a string',
    ],
    [
      'the ciphertext column as a key',
      {
        platform: 'storefront_a',
        shop_identifier: 'a.example.com',
        webhook_secret_ciphertext: 'v1.x.y.z',
      },
      'Unrecognized key: "webhook_secret_ciphertext"',
    ],
  ])('%s -> 400 VALIDATION_ERROR, nothing stored', async (_label, body, message) => {
    const before = await connectionsOf(owner.tenantId);
    const res = await api(owner).post(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      message: `Invalid storefront connection: ${message}`,
      details: { issues: expect.any(Array) },
    });
    expect(await connectionsOf(owner.tenantId)).toEqual(before);
  });

  it('a shop this workspace already connected (any spelling) -> 409 ALREADY_EXISTS, nothing stored; another workspace may claim it too', async () => {
    const other = await tenantSession(stack, database, 'owner');
    const shop = shopName();
    const first = await api(owner).post({
      platform: 'storefront_a',
      shop_identifier: `${shop}.example.com`,
      webhookSecret: newSecret(),
    });
    expect(first.status).toBe(201);
    const ownBefore = await connectionsOf(owner.tenantId);
    const res = await api(owner).post({
      platform: 'storefront_a',
      shop_identifier: `${shop.toUpperCase()}.EXAMPLE.com`,
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      success: false,
      error: 'Already exists',
      code: 'ALREADY_EXISTS',
      message: `The storefront_a shop ${shop}.example.com is already connected in this workspace`,
      details: { platform: 'storefront_a', shop_identifier: `${shop}.example.com` },
    });
    expect(await connectionsOf(owner.tenantId)).toEqual(ownBefore);
    // Specified: another workspace's claim is no conflict (and not revealed): it is stored as
    // its own claim, routed only by proof (docs/integrations.md, Proving an identifier).
    const theirs = await api(other).post({
      platform: 'storefront_a',
      shop_identifier: `${shop.toUpperCase()}.EXAMPLE.com`,
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.connection).toMatchObject({
      shop_identifier: `${shop}.example.com`,
      status: 'unverified',
    });
    expect(await connectionsOf(other.tenantId)).toHaveLength(1);
    // The same identifier on the other platform is another shop.
    const onB = await api(owner).post({
      platform: 'storefront_b',
      shop_identifier: `https://${shop}.example.com`,
    });
    expect(onB.status).toBe(201);
  });
});

describe('a connection is found the way a delivery looks it up', () => {
  it.each([
    [
      'storefront_a',
      (shop: string) => `${shop.toUpperCase()}.Example.com`,
      (shop: string) => `${shop}.example.com`,
      normaliseShopDomain,
    ],
    [
      'storefront_b',
      (shop: string) => `https://${shop}.example.com/`,
      (shop: string) => `HTTPS://${shop.toUpperCase()}.EXAMPLE.COM//`,
      normaliseSourceUrl,
    ],
  ] as const)(
    '%s: the shop header as the platform sends it finds the connection, tenant and secret',
    async (platform, typed, header, normalise) => {
      const owner = await tenantSession(stack, database, 'admin');
      const shop = shopName();
      const secret = newSecret();
      const res = await request(stack.url)
        .post(PATH)
        .set('Cookie', owner.cookie)
        .send({ platform, shop_identifier: typed(shop), webhookSecret: secret });
      expect(res.status).toBe(201);
      const [found, ...others] = await withSystemScope(database.db, (trx) =>
        findStorefrontClaims(trx, platform, normalise(header(shop))),
      );
      expect(others).toEqual([]);
      expect(found).toEqual({
        tenantId: owner.tenantId,
        connectionId: res.body.data.connection.id,
        secretCiphertext: expect.any(String),
        provenAt: null,
      });
      expect(testSecretBox().open(found?.secretCiphertext as string)).toBe(secret);
    },
  );
});

describe('GET /api/integrations/storefront-connections', () => {
  let owner: Session;
  let other: Session;
  const secret = newSecret();
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    other = await tenantSession(stack, database, 'owner');
    for (const body of [
      {
        platform: 'storefront_a',
        shop_identifier: `${shopName()}.example.com`,
        webhookSecret: secret,
      },
      { platform: 'storefront_b', shop_identifier: `https://${shopName()}.example.com` },
      { platform: 'storefront_a', shop_identifier: `${shopName()}.example.com` },
    ]) {
      expect((await api(owner).post(body)).status).toBe(201);
    }
    const theirs = await api(other).post({
      platform: 'storefront_a',
      shop_identifier: `${shopName()}.example.com`,
    });
    expect(theirs.status).toBe(201);
  });

  it("lists the tenant's connections, paginated, with hasWebhookSecret and no secret", async () => {
    const res = await api(owner).get();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 1, pageSize: 20, totalPages: 1 });
    expect(
      res.body.items.map((c: { platform: string; hasWebhookSecret: boolean }) => [
        c.platform,
        c.hasWebhookSecret,
      ]),
    ).toEqual([
      ['storefront_a', false],
      ['storefront_b', false],
      ['storefront_a', true],
    ]);
    expect(Object.keys(res.body.items[0]).sort()).toEqual(
      [
        'created_at',
        'hasWebhookSecret',
        'id',
        'name',
        'platform',
        'proven_at',
        'shop_identifier',
        'status',
        'webhookUrl',
      ].sort(),
    );
    expectNoSecretIn(res.body, secret);
  });

  it('filters by platform; a bad platform -> 400', async () => {
    const onlyB = await api(owner).get('?platform=storefront_b');
    expect(onlyB.status).toBe(200);
    expect(onlyB.body.total).toBe(1);
    expect(onlyB.body.items[0].platform).toBe('storefront_b');
    const bad = await api(owner).get('?platform=shopify');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Invalid filters: platform: platform must be one of: storefront_a, storefront_b',
    });
  });

  it('reads one by id, without the secret', async () => {
    const [withSecret] = (await connectionsOf(owner.tenantId)).filter(
      (r) => r.webhook_secret_ciphertext !== null,
    );
    const res = await api(owner).get(`/${withSecret.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.connection).toMatchObject({
      id: withSecret.id,
      hasWebhookSecret: true,
    });
    expectNoSecretIn(res.body, secret);
  });
});

describe('PATCH /api/integrations/storefront-connections/:id', () => {
  let owner: Session;
  let id: string;
  const firstSecret = newSecret();
  const storedRow = async () =>
    (await connectionsOf(owner.tenantId)).find((r) => r.id === id) as Record<string, unknown>;

  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    const res = await api(owner).post({
      platform: 'storefront_b',
      shop_identifier: `https://${shopName()}.example.com`,
      name: 'Before',
    });
    expect(res.status).toBe(201);
    id = res.body.data.connection.id;
  });

  it('sets a secret -> hasWebhookSecret true; the stored ciphertext opens to it', async () => {
    const res = await api(owner).patch(id, { webhookSecret: firstSecret });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Storefront connection updated',
      data: { connection: { id, name: 'Before', hasWebhookSecret: true } },
    });
    expectNoSecretIn(res.body, firstSecret);
    const row = await storedRow();
    expect(testSecretBox().open(row.webhook_secret_ciphertext as string)).toBe(firstSecret);
  });

  it('rotates the secret: the new one is stored, the old one is gone', async () => {
    const rotated = newSecret();
    const before = await storedRow();
    const res = await api(owner).patch(id, { webhookSecret: rotated });
    expect(res.status).toBe(200);
    expectNoSecretIn(res.body, rotated, firstSecret);
    const row = await storedRow();
    expect(row.webhook_secret_ciphertext).not.toBe(before.webhook_secret_ciphertext);
    expect(testSecretBox().open(row.webhook_secret_ciphertext as string)).toBe(rotated);
  });

  it('renames without touching the secret', async () => {
    const before = await storedRow();
    const res = await api(owner).patch(id, { name: '  After ' });
    expect(res.status).toBe(200);
    expect(res.body.data.connection).toMatchObject({ name: 'After', hasWebhookSecret: true });
    expect(await storedRow()).toEqual({ ...before, name: 'After' });
  });

  it('clears the secret and the name with null', async () => {
    const res = await api(owner).patch(id, { webhookSecret: null, name: null });
    expect(res.status).toBe(200);
    expect(res.body.data.connection).toMatchObject({ name: null, hasWebhookSecret: false });
    expect(await storedRow()).toMatchObject({ name: null, webhook_secret_ciphertext: null });
  });

  it.each([
    ['nothing to change', {}, 'give at least one field to change'],
    [
      'a new shop_identifier',
      { shop_identifier: 'https://x.example.com' },
      'Unrecognized key: "shop_identifier"',
    ],
    ['a new platform', { platform: 'storefront_a' }, 'Unrecognized key: "platform"'],
    ['an empty secret', { webhookSecret: '' }, 'webhookSecret: webhookSecret must not be empty'],
    ['an empty name', { name: ' ' }, 'name: name must not be empty (send null to clear it)'],
  ])('%s -> 400 VALIDATION_ERROR, row unchanged', async (_label, body, message) => {
    const before = await storedRow();
    const res = await api(owner).patch(id, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `Invalid storefront connection change: ${message}`,
    });
    expect(await storedRow()).toEqual(before);
  });

  it('an unknown id -> 404', async () => {
    const res = await api(owner).patch(UNKNOWN_ID, { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Storefront connection not found',
    });
  });
});

describe('tenants apart, and DELETE', () => {
  let owner: Session;
  let intruder: Session;
  let id: string;
  const secret = newSecret();

  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    intruder = await tenantSession(stack, database, 'owner');
    const res = await api(owner).post({
      platform: 'storefront_a',
      shop_identifier: `${shopName()}.example.com`,
      name: 'Owned',
      webhookSecret: secret,
    });
    expect(res.status).toBe(201);
    id = res.body.data.connection.id;
  });

  it("another tenant's read, patch or delete of the connection -> 404; the row stays as it was", async () => {
    const before = await connectionsOf(owner.tenantId);
    const attempts = [
      await api(intruder).get(`/${id}`),
      await api(intruder).patch(id, { webhookSecret: newSecret() }),
      await api(intruder).patch(id, { webhookSecret: null }),
      await api(intruder).patch(id, { name: 'Hijacked' }),
      await api(intruder).delete(id),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        code: 'NOT_FOUND',
        message: 'Storefront connection not found',
      });
    }
    expect(await connectionsOf(owner.tenantId)).toEqual(before);
    expect((await api(intruder).get()).body.total).toBe(0);
  });

  it('the owner deletes it -> 200 { id }; the row is gone', async () => {
    const res = await api(owner).delete(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { id },
      message: 'Storefront connection removed',
    });
    expect(await connectionsOf(owner.tenantId)).toEqual([]);
    expect((await api(owner).get(`/${id}`)).status).toBe(404);
  });
});
