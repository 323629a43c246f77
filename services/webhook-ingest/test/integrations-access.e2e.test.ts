import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import { addMember, createAccount, signIn, tenantRows, tenantSession, testDb } from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * Admin views: who may reach /api/integrations. No session -> 401 `Unauthorized`
 * (at the gateway, and at the service itself without the gateway's identity); viewers and
 * members read but do not write; owners and admins do both. Every refused write is checked
 * to have stored nothing.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;

const BASE = '/api/integrations';
const TABLES = [
  'network_accounts',
  'messaging_accounts',
  'telephony_numbers',
  'storefront_connections',
  'payment_connections',
] as const;

const digits = (n: number) =>
  Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join('');

/**
 * A fresh, valid creation body for each resource: globally unique identifiers, and a name
 * no other row has, so "stored nowhere" can be checked across all tenants.
 */
function creations(name = `probe-${randomUUID()}`) {
  return {
    'network-accounts': { name, external_account_id: `acct-${randomUUID()}` },
    'messaging-accounts': { name, phone_number_id: digits(15) },
    'telephony-numbers': { name, phone_number: `+3312${digits(8)}` },
    'storefront-connections': {
      name,
      platform: 'storefront_a',
      shop_identifier: `shop-${digits(10)}.example.com`,
      webhookSecret: `shpss_${randomUUID()}`,
    },
    'payment-connections': { name, provider: 'stripe', webhookSecret: `whsec_${randomUUID()}` },
  };
}
type Resource = keyof ReturnType<typeof creations>;
const RESOURCES = Object.keys(creations()) as Resource[];
const PATCHABLE: Resource[] = ['storefront-connections', 'payment-connections'];

/** Whether any tenant holds a row of `table` with this name. */
async function storedAnywhere(table: string, name: string): Promise<boolean> {
  return withSystemScope(database.db, async (trx) => {
    const { rows } = await sql<{
      n: string;
    }>`SELECT count(*)::text AS n FROM ${sql.table(table)} WHERE name = ${name}`.execute(trx);
    return rows[0].n !== '0';
  });
}

const tableOf = (resource: Resource) => resource.replace(/-/g, '_');

async function rowsOf(tenantId: string) {
  const all: Record<string, unknown[]> = {};
  for (const table of TABLES) all[table] = await tenantRows(database, table, tenantId);
  return all;
}

async function memberOf(tenant: Session, role: 'admin' | 'member' | 'viewer'): Promise<Session> {
  const user = await createAccount(database, role);
  await addMember(database, tenant.tenantId, user.id, role);
  return { ...tenant, userId: user.id, cookie: await signIn(stack.gateway.app, user.email) };
}

let owner: Session;
const existing = {} as Record<Resource, string>;
beforeAll(async () => {
  owner = await tenantSession(stack, database, 'owner');
  const bodies = creations();
  for (const resource of RESOURCES) {
    const res = await request(stack.url)
      .post(`${BASE}/${resource}`)
      .set('Cookie', owner.cookie)
      .send(bodies[resource]);
    expect(res.status).toBe(201);
    existing[resource] = (
      res.body.data.account ??
      res.body.data.number ??
      res.body.data.connection
    ).id;
  }
});

describe('no session', () => {
  it.each(RESOURCES)('%s: every method -> 401 Unauthorized, nothing stored', async (resource) => {
    const body = creations()[resource];
    const client = request(stack.url);
    const id = existing[resource];
    const before = await rowsOf(owner.tenantId);
    const answers = [
      await client.get(`${BASE}/${resource}`),
      await client.get(`${BASE}/${resource}/${id}`),
      await client.post(`${BASE}/${resource}`).send(body),
      await client.patch(`${BASE}/${resource}/${id}`).send({ name: 'x' }),
      await client.delete(`${BASE}/${resource}/${id}`),
    ];
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        success: false,
        error: 'Unauthorized',
        code: 'UNAUTHORIZED',
      });
    }
    expect(await storedAnywhere(tableOf(resource), body.name)).toBe(false);
    expect(await rowsOf(owner.tenantId)).toEqual(before);
  });

  it('the ledger too -> 401 Unauthorized', async () => {
    const res = await request(stack.url).get(`${BASE}/inbound-events`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'Unauthorized', code: 'UNAUTHORIZED' });
  });

  it('straight at webhook-ingest, without the gateway’s signed identity -> 401, even naming a tenant', async () => {
    const before = await rowsOf(owner.tenantId);
    const body = creations()['network-accounts'];
    const answers = [
      await request(stack.serviceUrl).get(`${BASE}/network-accounts`),
      await request(stack.serviceUrl)
        .get(`${BASE}/inbound-events`)
        .set('x-tenant-id', owner.tenantId),
      await request(stack.serviceUrl)
        .post(`${BASE}/network-accounts`)
        .set('x-tenant-id', owner.tenantId)
        .send(body),
      await request(stack.serviceUrl)
        .post(`${BASE}/network-accounts`)
        .set('x-crm-identity', 'forged.token')
        .send(body),
    ];
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'Unauthorized', code: 'UNAUTHORIZED' });
    }
    expect(await storedAnywhere('network_accounts', body.name)).toBe(false);
    expect(await rowsOf(owner.tenantId)).toEqual(before);
  });
});

describe.each([
  ['viewer', 'Viewers may only read'],
  ['member', 'This action needs one of the roles: owner, admin'],
] as const)('a %s', (role, refusal) => {
  let session: Session;
  beforeAll(async () => {
    session = await memberOf(owner, role);
  });

  it.each(RESOURCES)('reads %s (list and one)', async (resource) => {
    const list = await request(stack.url).get(`${BASE}/${resource}`).set('Cookie', session.cookie);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    const one = await request(stack.url)
      .get(`${BASE}/${resource}/${existing[resource]}`)
      .set('Cookie', session.cookie);
    expect(one.status).toBe(200);
  });

  it.each(RESOURCES)(
    'cannot create, change or delete %s: 403 FORBIDDEN, nothing stored',
    async (resource) => {
      const before = await rowsOf(owner.tenantId);
      const client = request(stack.url);
      const id = existing[resource];
      const body = creations()[resource];
      const answers = [
        await client.post(`${BASE}/${resource}`).set('Cookie', session.cookie).send(body),
        await client.delete(`${BASE}/${resource}/${id}`).set('Cookie', session.cookie),
      ];
      if (PATCHABLE.includes(resource)) {
        answers.push(
          await client
            .patch(`${BASE}/${resource}/${id}`)
            .set('Cookie', session.cookie)
            .send({ name: 'changed', webhookSecret: 'stolen-secret' }),
        );
      }
      for (const res of answers) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN', message: refusal });
      }
      expect(await storedAnywhere(tableOf(resource), body.name)).toBe(false);
      expect(await rowsOf(owner.tenantId)).toEqual(before);
    },
  );
});

describe('an admin', () => {
  it.each(RESOURCES)('creates, renames (where it can) and deletes %s', async (resource) => {
    const admin = await memberOf(await tenantSession(stack, database, 'owner'), 'admin');
    const client = request(stack.url);
    const created = await client
      .post(`${BASE}/${resource}`)
      .set('Cookie', admin.cookie)
      .send(creations()[resource]);
    expect(created.status).toBe(201);
    const id = (
      created.body.data.account ??
      created.body.data.number ??
      created.body.data.connection
    ).id;
    const table = tableOf(resource);
    expect((await tenantRows(database, table, admin.tenantId)).map((r) => r.id)).toEqual([id]);
    if (PATCHABLE.includes(resource)) {
      const patched = await client
        .patch(`${BASE}/${resource}/${id}`)
        .set('Cookie', admin.cookie)
        .send({ name: 'By admin' });
      expect(patched.status).toBe(200);
      expect(await tenantRows(database, table, admin.tenantId)).toMatchObject([
        { id, name: 'By admin' },
      ]);
    }
    const removed = await client.delete(`${BASE}/${resource}/${id}`).set('Cookie', admin.cookie);
    expect(removed.status).toBe(200);
    expect(await tenantRows(database, table, admin.tenantId)).toEqual([]);
  });
});
