import { randomUUID } from 'node:crypto';
import { sessionClient, tenantRows, tenantSession, testDb } from '@crm/test-kit';
import request from 'supertest';
import { TEST_PUBLIC_BASE_URL, useReceiverStack } from './support/receiver-stack';

/**
 * Admin views: the accounts and numbers that resolve a delivery's tenant
 * (network accounts, messaging accounts, telephony numbers), managed through the real gateway
 * with a session. Every write is read back from the database; every refused one is checked to
 * leave the rows as they were.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;

function api(session: Session) {
  return sessionClient(stack.url, session.cookie);
}

const unique = () => randomUUID().replace(/-/g, '').slice(0, 12);
const digits = (n: number) =>
  Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join('');
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('POST /api/integrations/network-accounts', () => {
  let owner: Session;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
  });

  it('connects an account -> 201 { account }, stored for the tenant', async () => {
    const externalId = `urn:partner:${unique()}`;
    const res = await api(owner).post('/api/integrations/network-accounts', {
      external_account_id: `  ${externalId} `,
      name: ' Sales team ',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Network account connected',
      data: {
        account: {
          id: expect.any(String),
          external_account_id: externalId,
          name: 'Sales team',
          // A claim: pending until proven through its verification URL.
          proven_at: null,
          status: 'pending',
          verificationUrl: expect.stringMatching(
            new RegExp(`^${TEST_PUBLIC_BASE_URL}\\/api\\/webhooks\\/network\\?claim=[0-9a-f]{64}$`),
          ),
          created_at: expect.any(String),
        },
      },
    });
    expect(await tenantRows(database, 'network_accounts', owner.tenantId)).toEqual([
      {
        id: res.body.data.account.id,
        tenant_id: owner.tenantId,
        external_account_id: externalId,
        name: 'Sales team',
        proven_at: null,
        proof_token: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_at: expect.any(Date),
      },
    ]);
  });

  it('name is optional (stored as null)', async () => {
    const session = await tenantSession(stack, database, 'admin');
    const res = await api(session).post('/api/integrations/network-accounts', {
      external_account_id: unique(),
    });
    expect(res.status).toBe(201);
    expect(res.body.data.account.name).toBeNull();
    expect(await tenantRows(database, 'network_accounts', session.tenantId)).toMatchObject([
      { name: null },
    ]);
  });

  it.each([
    ['no id', {}, 'external_account_id: external_account_id is required'],
    [
      'a number',
      { external_account_id: 42 },
      'external_account_id: external_account_id must be a string',
    ],
    [
      'spaces only',
      { external_account_id: '   ' },
      'external_account_id: external_account_id is required',
    ],
    [
      'a space inside',
      { external_account_id: 'two words' },
      'external_account_id: external_account_id must not contain spaces',
    ],
    [
      '201 characters',
      { external_account_id: 'x'.repeat(201) },
      'external_account_id: external_account_id must be at most 200 characters',
    ],
    [
      'an empty name',
      { external_account_id: 'ok', name: '' },
      'name: name must not be empty (send null to clear it)',
    ],
    [
      'a name of 201 characters',
      { external_account_id: 'ok', name: 'n'.repeat(201) },
      'name: name must be at most 200 characters',
    ],
    [
      'an unknown key',
      { external_account_id: 'ok', tenant_id: UNKNOWN_ID },
      'Unrecognized key: "tenant_id"',
    ],
    ['an array', [], 'the body must be a JSON object'],
  ])('%s -> 400 VALIDATION_ERROR, nothing stored', async (_label, body, message) => {
    const before = await tenantRows(database, 'network_accounts', owner.tenantId);
    const res = await api(owner).post('/api/integrations/network-accounts', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      message: `Invalid network account: ${message}`,
      details: { issues: expect.any(Array) },
    });
    expect(await tenantRows(database, 'network_accounts', owner.tenantId)).toEqual(before);
  });

  it('malformed JSON -> 400 INVALID_JSON; a non-JSON body -> 400, nothing stored', async () => {
    const before = await tenantRows(database, 'network_accounts', owner.tenantId);
    const malformed = await request(stack.url)
      .post('/api/integrations/network-accounts')
      .set('Cookie', owner.cookie)
      .set('Content-Type', 'application/json')
      .send('{"external_account_id": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ success: false, code: 'INVALID_JSON' });
    // Not a content type a form can send: those (text/plain, ...) with the session cookie and
    // no browser headers are refused by the gateway's cross-site check before this service.
    const asText = await request(stack.url)
      .post('/api/integrations/network-accounts')
      .set('Cookie', owner.cookie)
      .set('Content-Type', 'application/xml')
      .send('external_account_id=abc');
    expect(asText.status).toBe(400);
    expect(asText.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Invalid network account: the body must be a JSON object',
    });
    expect(await tenantRows(database, 'network_accounts', owner.tenantId)).toEqual(before);
  });
});

describe('POST /api/integrations/messaging-accounts', () => {
  it('connects a business number -> 201 { account }, stored for the tenant', async () => {
    const owner = await tenantSession(stack, database, 'owner');
    const phoneNumberId = digits(15);
    const res = await api(owner).post('/api/integrations/messaging-accounts', {
      phone_number_id: phoneNumberId,
      display_phone_number: '+1 (555) 010-0000',
      name: 'Support line',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Messaging account connected',
      data: {
        account: {
          id: expect.any(String),
          phone_number_id: phoneNumberId,
          display_phone_number: '+1 (555) 010-0000',
          name: 'Support line',
          // A claim: pending until proven through its verification URL.
          proven_at: null,
          status: 'pending',
          verificationUrl: expect.stringMatching(
            new RegExp(
              `^${TEST_PUBLIC_BASE_URL}\\/api\\/messaging\\/webhooks\\/cloud-api\\?claim=[0-9a-f]{64}$`,
            ),
          ),
          created_at: expect.any(String),
        },
      },
    });
    expect(await tenantRows(database, 'messaging_accounts', owner.tenantId)).toEqual([
      {
        id: res.body.data.account.id,
        tenant_id: owner.tenantId,
        phone_number_id: phoneNumberId,
        display_phone_number: '+1 (555) 010-0000',
        name: 'Support line',
        proven_at: null,
        proof_token: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_at: expect.any(Date),
      },
    ]);
  });

  it.each([
    ['no phone_number_id', {}, 'phone_number_id: phone_number_id is required'],
    [
      'a phone_number_id of 101 characters',
      { phone_number_id: '1'.repeat(101) },
      'phone_number_id: phone_number_id must be at most 100 characters',
    ],
    [
      'letters in display_phone_number',
      { phone_number_id: '123', display_phone_number: 'call me' },
      'display_phone_number: display_phone_number may hold only digits, spaces and + - . ( )',
    ],
    [
      'a number as display_phone_number',
      { phone_number_id: '123', display_phone_number: 15550100 },
      'display_phone_number: display_phone_number must be a string',
    ],
  ])('%s -> 400 VALIDATION_ERROR, nothing stored', async (_label, body, message) => {
    const owner = await tenantSession(stack, database, 'owner');
    const res = await api(owner).post('/api/integrations/messaging-accounts', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `Invalid messaging account: ${message}`,
    });
    expect(await tenantRows(database, 'messaging_accounts', owner.tenantId)).toEqual([]);
  });
});

describe('POST /api/integrations/telephony-numbers', () => {
  it('stores the number in E.164, dropping the punctuation people paste', async () => {
    const owner = await tenantSession(stack, database, 'owner');
    const local = digits(7);
    const res = await api(owner).post('/api/integrations/telephony-numbers', {
      phone_number: `+1 (415) ${local.slice(0, 3)}-${local.slice(3)}`,
      name: 'Front desk',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Telephony number connected',
      data: {
        number: {
          id: expect.any(String),
          phone_number: `+1415${local}`,
          name: 'Front desk',
          // A claim: pending until proven through its verification URL.
          proven_at: null,
          status: 'pending',
          verificationUrl: expect.stringMatching(
            new RegExp(
              `^${TEST_PUBLIC_BASE_URL}\\/api\\/communications\\/webhooks\\?claim=[0-9a-f]{64}$`,
            ),
          ),
          created_at: expect.any(String),
        },
      },
    });
    expect(await tenantRows(database, 'telephony_numbers', owner.tenantId)).toEqual([
      {
        id: res.body.data.number.id,
        tenant_id: owner.tenantId,
        phone_number: `+1415${local}`,
        name: 'Front desk',
        proven_at: null,
        proof_token: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_at: expect.any(Date),
      },
    ]);
  });

  it.each([
    ['no plus sign', '14155550100'],
    ['a leading zero', '+04155550100'],
    ['too short', '+123456'],
    ['too long', '+1234567890123456'],
    ['letters', '+1415555CALL'],
  ])('%s -> 400 VALIDATION_ERROR, nothing stored', async (_label, phoneNumber) => {
    const owner = await tenantSession(stack, database, 'owner');
    const res = await api(owner).post('/api/integrations/telephony-numbers', {
      phone_number: phoneNumber,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid telephony number: phone_number: phone_number must be an E.164 number, e.g. +14155550100',
    });
    expect(await tenantRows(database, 'telephony_numbers', owner.tenantId)).toEqual([]);
  });
});

/** The behaviour the three resources share, run for each. */
const RESOURCES = [
  {
    path: '/api/integrations/network-accounts',
    table: 'network_accounts',
    key: 'account',
    field: 'external_account_id',
    label: 'The network account',
    notFound: 'Network account not found',
    removed: 'Network account removed',
    newValue: () => `acct-${unique()}`,
  },
  {
    path: '/api/integrations/messaging-accounts',
    table: 'messaging_accounts',
    key: 'account',
    field: 'phone_number_id',
    label: 'The phone_number_id',
    notFound: 'Messaging account not found',
    removed: 'Messaging account removed',
    newValue: () => digits(16),
  },
  {
    path: '/api/integrations/telephony-numbers',
    table: 'telephony_numbers',
    key: 'number',
    field: 'phone_number',
    label: 'The number',
    notFound: 'Telephony number not found',
    removed: 'Telephony number removed',
    newValue: () => `+4420${digits(8)}`,
  },
] as const;

describe.each(RESOURCES)('$path', (resource) => {
  let owner: Session;
  let other: Session;
  const values: string[] = [];
  const ids: string[] = [];
  let othersId: string;
  let othersValue: string;

  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    other = await tenantSession(stack, database, 'owner');
    for (const name of ['alpha', 'bravo', 'charlie']) {
      const value = resource.newValue();
      const res = await api(owner).post(resource.path, { [resource.field]: value, name });
      expect(res.status).toBe(201);
      values.push(value);
      ids.push(res.body.data[resource.key].id);
    }
    othersValue = resource.newValue();
    const res = await api(other).post(resource.path, { [resource.field]: othersValue });
    expect(res.status).toBe(201);
    othersId = res.body.data[resource.key].id;
  });

  it("lists only the tenant's rows, paginated, newest first", async () => {
    const res = await api(owner).get(resource.path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: expect.any(Array),
      total: 3,
      page: 1,
      pageSize: 20,
      totalPages: 1,
    });
    expect(res.body.items.map((item: Record<string, string>) => item[resource.field])).toEqual(
      [...values].reverse(),
    );
    expect(JSON.stringify(res.body)).not.toContain(othersId);
  });

  it('page, pageSize, sortBy and sortOrder; a bad one -> 400', async () => {
    const res = await api(owner).get(
      `${resource.path}?page=2&pageSize=2&sortBy=name&sortOrder=asc`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(res.body.items.map((item: { name: string }) => item.name)).toEqual(['charlie']);
    const bad = await api(owner).get(`${resource.path}?pageSize=101`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Invalid pagination parameters: pageSize: pageSize must be at most 100',
    });
  });

  it('reads one by id -> 200 { <resource> }', async () => {
    const res = await api(owner).get(`${resource.path}/${ids[0]}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      data: { [resource.key]: { id: ids[0], [resource.field]: values[0], name: 'alpha' } },
    });
  });

  it('an unknown id or a non-uuid -> 404 NOT_FOUND', async () => {
    for (const id of [UNKNOWN_ID, 'not-an-id']) {
      for (const res of [
        await api(owner).get(`${resource.path}/${id}`),
        await api(owner).delete(`${resource.path}/${id}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: resource.notFound });
      }
    }
  });

  it("another tenant's id -> 404 on read and delete; its row stays", async () => {
    const before = await tenantRows(database, resource.table, other.tenantId);
    const read = await api(owner).get(`${resource.path}/${othersId}`);
    expect(read.status).toBe(404);
    expect(read.body).toMatchObject({ code: 'NOT_FOUND', message: resource.notFound });
    const removal = await api(owner).delete(`${resource.path}/${othersId}`);
    expect(removal.status).toBe(404);
    expect(removal.body).toMatchObject({ code: 'NOT_FOUND', message: resource.notFound });
    expect(await tenantRows(database, resource.table, other.tenantId)).toEqual(before);
  });

  it('an identifier this workspace already connected -> 409 ALREADY_EXISTS; one another workspace claims -> 201, its own pending claim', async () => {
    const ownBefore = await tenantRows(database, resource.table, owner.tenantId);
    const otherBefore = await tenantRows(database, resource.table, other.tenantId);
    const res = await api(owner).post(resource.path, {
      [resource.field]: values[1],
      name: 'again',
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      success: false,
      error: 'Already exists',
      code: 'ALREADY_EXISTS',
      message: `${resource.label} ${values[1]} is already connected in this workspace`,
      details: { [resource.field]: values[1] },
    });
    expect(await tenantRows(database, resource.table, owner.tenantId)).toEqual(ownBefore);
    // Specified: another workspace's claim is no conflict and is not revealed.
    const claim = await api(owner).post(resource.path, { [resource.field]: othersValue });
    expect(claim.status).toBe(201);
    expect(claim.body.data[resource.key]).toMatchObject({
      [resource.field]: othersValue,
      status: 'pending',
    });
    const text = JSON.stringify(claim.body);
    for (const id of [other.tenantId, othersId]) expect(text).not.toContain(id);
    expect(await tenantRows(database, resource.table, owner.tenantId)).toHaveLength(
      ownBefore.length + 1,
    );
    expect(await tenantRows(database, resource.table, other.tenantId)).toEqual(otherBefore);
    await api(owner).delete(`${resource.path}/${claim.body.data[resource.key].id}`);
  });

  it('deletes by id -> 200 { id }; the row is gone and the identifier can be connected again', async () => {
    const res = await api(owner).delete(`${resource.path}/${ids[2]}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: ids[2] }, message: resource.removed });
    const rows = await tenantRows(database, resource.table, owner.tenantId);
    expect(rows.map((row) => row.id).sort()).toEqual([ids[0], ids[1]].sort());
    expect((await api(owner).delete(`${resource.path}/${ids[2]}`)).status).toBe(404);
    const again = await api(other).post(resource.path, { [resource.field]: values[2] });
    expect(again.status).toBe(201);
  });
});
