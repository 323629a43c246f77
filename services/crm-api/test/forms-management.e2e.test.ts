import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  sessionClient,
  signIn,
  tenantSession,
  testDb,
} from '@crm/test-kit';
import request from 'supertest';
import { useStack } from './support/stack';

/**
 * Web form management under /api/crm/forms, through a real gateway in
 * front of a real crm-api. Owner and admin only; every write checked in the database, and
 * every refused one checked for leaving the table as it was.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;

function formsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_web_forms')
      .select(['id', 'slug', 'name', 'fields', 'enabled', 'updated_at'])
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  );
}

function api(session: Session) {
  return sessionClient(stack.url, session.cookie);
}

const CONTACT_FIELDS = [
  { name: 'email', label: 'Email', type: 'email', required: true },
  { name: 'first_name', label: 'First name' },
  { name: 'company', label: 'Company', required: true },
  { name: 'topic', type: 'select', options: ['sales', 'support'] },
];

describe('POST /api/crm/forms', () => {
  let owner: Session;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
  });

  it('creates a form -> 201 { form }, stored with defaults filled in', async () => {
    const res = await api(owner).post('/api/crm/forms', {
      slug: 'contact-us',
      name: '  Contact us ',
      fields: CONTACT_FIELDS,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Form created',
      data: {
        form: {
          id: expect.any(String),
          slug: 'contact-us',
          name: 'Contact us',
          fields: [
            { name: 'email', label: 'Email', type: 'email', required: true },
            { name: 'first_name', label: 'First name', type: 'text', required: false },
            { name: 'company', label: 'Company', type: 'text', required: true },
            { name: 'topic', type: 'select', required: false, options: ['sales', 'support'] },
          ],
          enabled: true,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      },
    });
    const rows = await formsOf(owner.tenantId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: res.body.data.form.id,
      slug: 'contact-us',
      name: 'Contact us',
      enabled: true,
      fields: res.body.data.form.fields,
    });
  });

  it('fields and enabled are optional: [] and true', async () => {
    const res = await api(owner).post('/api/crm/forms', { slug: 'bare', name: 'Bare' });
    expect(res.status).toBe(201);
    expect(res.body.data.form).toMatchObject({ slug: 'bare', fields: [], enabled: true });
  });

  it('a form may be created disabled', async () => {
    const res = await api(owner).post('/api/crm/forms', {
      slug: 'later',
      name: 'Later',
      enabled: false,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.form.enabled).toBe(false);
  });

  it('a duplicate slug in the tenant -> 409 ALREADY_EXISTS, nothing changed', async () => {
    const before = await formsOf(owner.tenantId);
    const res = await api(owner).post('/api/crm/forms', { slug: 'contact-us', name: 'Again' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      success: false,
      error: 'Already exists',
      code: 'ALREADY_EXISTS',
      message: 'A form with the slug contact-us already exists',
      details: { slug: 'contact-us' },
    });
    expect(await formsOf(owner.tenantId)).toEqual(before);
  });

  it('the same slug in another tenant is fine', async () => {
    const other = await tenantSession(stack, database, 'admin');
    const res = await api(other).post('/api/crm/forms', { slug: 'contact-us', name: 'Theirs' });
    expect(res.status).toBe(201);
    expect(await formsOf(other.tenantId)).toHaveLength(1);
  });

  const SLUG_RULE =
    'Invalid form: slug: slug must be lower-case letters, digits and single dashes (e.g. contact-us)';
  it.each([
    ['slug missing', { name: 'No slug' }, 'Invalid form: slug: slug is required'],
    ['slug with capitals', { slug: 'Contact_Us', name: 'x' }, SLUG_RULE],
    ['slug starting with a dash', { slug: '-edge', name: 'x' }, SLUG_RULE],
    ['slug with a double dash', { slug: 'a--b', name: 'x' }, SLUG_RULE],
    [
      'slug of 64 characters',
      { slug: 'a'.repeat(64), name: 'x' },
      'Invalid form: slug: slug must be at most 63 characters',
    ],
    ['name missing', { slug: 'no-name' }, 'Invalid form: name: name is required'],
    ['name of spaces', { slug: 'no-name', name: '   ' }, 'Invalid form: name: name is required'],
    [
      'name of 201 characters',
      { slug: 'long', name: 'n'.repeat(201) },
      'Invalid form: name: name must be at most 200 characters',
    ],
    [
      'fields not an array',
      { slug: 'f', name: 'x', fields: 'email' },
      'Invalid form: fields: fields must be an array',
    ],
    [
      'the honeypot name as a field',
      { slug: 'f', name: 'x', fields: [{ name: '_hp' }] },
      'Invalid form: fields.0.name: field name must start with a letter and hold only letters, digits and _ (<= 64)',
    ],
    [
      'an unknown field type',
      { slug: 'f', name: 'x', fields: [{ name: 'a', type: 'date' }] },
      'Invalid form: fields.0.type: field type must be one of: text, email, tel, textarea, select, checkbox',
    ],
    [
      'a select without options',
      { slug: 'f', name: 'x', fields: [{ name: 'a', type: 'select' }] },
      'Invalid form: fields.0.options: a select field needs options',
    ],
    [
      'options on a text field',
      { slug: 'f', name: 'x', fields: [{ name: 'a', options: ['x'] }] },
      'Invalid form: fields.0.options: options are only for select fields',
    ],
    [
      'required not a boolean',
      { slug: 'f', name: 'x', fields: [{ name: 'a', required: 'yes' }] },
      'Invalid form: fields.0.required: required must be true or false',
    ],
    [
      'a field name twice',
      { slug: 'f', name: 'x', fields: [{ name: 'a' }, { name: 'a' }] },
      'Invalid form: fields.1.name: field name a is used twice',
    ],
    [
      '51 fields',
      { slug: 'f', name: 'x', fields: Array.from({ length: 51 }, (_, i) => ({ name: `f${i}` })) },
      'Invalid form: fields: a form has at most 50 fields',
    ],
    [
      'enabled not a boolean',
      { slug: 'f', name: 'x', enabled: 'yes' },
      'Invalid form: enabled: enabled must be true or false',
    ],
    [
      'an unknown key',
      { slug: 'f', name: 'x', owner: 'me' },
      'Invalid form: Unrecognized key: "owner"',
    ],
  ])('%s -> 400 VALIDATION_ERROR, no row', async (_label, body, message) => {
    const before = await formsOf(owner.tenantId);
    const res = await api(owner).post('/api/crm/forms', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      message,
    });
    expect(await formsOf(owner.tenantId)).toEqual(before);
  });

  it('malformed JSON -> 400 INVALID_JSON, no row', async () => {
    const before = await formsOf(owner.tenantId);
    const res = await request(stack.url)
      .post('/api/crm/forms')
      .set('Cookie', owner.cookie)
      .set('Content-Type', 'application/json')
      .send('{"slug": "x", ');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'INVALID_JSON' });
    expect(await formsOf(owner.tenantId)).toEqual(before);
  });
});

describe('GET /api/crm/forms', () => {
  let owner: Session;
  let other: Session;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    other = await tenantSession(stack, database, 'owner');
    for (const slug of ['alpha', 'bravo', 'charlie']) {
      const res = await api(owner).post('/api/crm/forms', {
        slug,
        name: slug.toUpperCase(),
        enabled: slug !== 'bravo',
      });
      expect(res.status).toBe(201);
    }
    expect((await api(other).post('/api/crm/forms', { slug: 'zulu', name: 'Z' })).status).toBe(201);
  });

  it("pages the tenant's forms with the shared helper, newest first by default", async () => {
    const res = await api(owner).get('/api/crm/forms');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: expect.any(Array),
      total: 3,
      totalExact: true,
      page: 1,
      pageSize: 20,
      totalPages: 1,
      nextCursor: null,
    });
    expect(res.body.items.map((f: { slug: string }) => f.slug)).toEqual([
      'charlie',
      'bravo',
      'alpha',
    ]);
    expect(Object.keys(res.body.items[0]).sort()).toEqual(
      ['created_at', 'enabled', 'fields', 'id', 'name', 'slug', 'updated_at'].sort(),
    );
  });

  it('page, pageSize, sortBy and sortOrder', async () => {
    const res = await api(owner).get('/api/crm/forms?page=2&pageSize=2&sortBy=slug&sortOrder=asc');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(res.body.items.map((f: { slug: string }) => f.slug)).toEqual(['charlie']);
  });

  it('filters by enabled', async () => {
    const disabled = await api(owner).get('/api/crm/forms?enabled=false');
    expect(disabled.body.items.map((f: { slug: string }) => f.slug)).toEqual(['bravo']);
    const enabled = await api(owner).get('/api/crm/forms?enabled=true&sortBy=slug&sortOrder=asc');
    expect(enabled.body.items.map((f: { slug: string }) => f.slug)).toEqual(['alpha', 'charlie']);
  });

  it('bad query values -> 400 VALIDATION_ERROR', async () => {
    const badEnabled = await api(owner).get('/api/crm/forms?enabled=maybe');
    expect(badEnabled.status).toBe(400);
    expect(badEnabled.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Invalid filters: enabled: enabled must be true or false',
    });
    const badSort = await api(owner).get('/api/crm/forms?sortBy=fields');
    expect(badSort.status).toBe(400);
    expect(badSort.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid pagination parameters: sortBy: sortBy must be one of: created_at, updated_at, name, slug',
    });
  });

  it("another tenant's list holds only its own form", async () => {
    const res = await api(other).get('/api/crm/forms');
    expect(res.body.total).toBe(1);
    expect(res.body.items.map((f: { slug: string }) => f.slug)).toEqual(['zulu']);
  });
});

describe('GET and PATCH /api/crm/forms/:id', () => {
  let owner: Session;
  let formId: string;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    const res = await api(owner).post('/api/crm/forms', {
      slug: 'demo-request',
      name: 'Demo request',
      fields: [{ name: 'company', required: true }],
    });
    formId = res.body.data.form.id;
  });

  it('reads one form -> { form }', async () => {
    const res = await api(owner).get(`/api/crm/forms/${formId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      data: {
        form: {
          id: formId,
          slug: 'demo-request',
          name: 'Demo request',
          fields: [{ name: 'company', type: 'text', required: true }],
          enabled: true,
        },
      },
    });
  });

  it('an unknown id or a non-uuid -> 404 NOT_FOUND', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const res = await api(owner).get(`/api/crm/forms/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        success: false,
        code: 'NOT_FOUND',
        message: 'Form not found',
      });
    }
  });

  it('updates name and fields; the slug stays', async () => {
    const [before] = await formsOf(owner.tenantId);
    const res = await api(owner).patch(`/api/crm/forms/${formId}`, {
      name: 'Book a demo',
      fields: [{ name: 'company' }, { name: 'size', type: 'select', options: ['1-10', '11+'] }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Form updated',
      data: {
        form: {
          id: formId,
          slug: 'demo-request',
          name: 'Book a demo',
          enabled: true,
          fields: [
            { name: 'company', type: 'text', required: false },
            { name: 'size', type: 'select', required: false, options: ['1-10', '11+'] },
          ],
        },
      },
    });
    const [after] = await formsOf(owner.tenantId);
    expect(after).toMatchObject({
      slug: 'demo-request',
      name: 'Book a demo',
      fields: res.body.data.form.fields,
    });
    expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
  });

  it('disables with PATCH { enabled: false } and enables again', async () => {
    const off = await api(owner).patch(`/api/crm/forms/${formId}`, { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.data.form.enabled).toBe(false);
    expect((await formsOf(owner.tenantId))[0].enabled).toBe(false);
    const on = await api(owner).patch(`/api/crm/forms/${formId}`, { enabled: true });
    expect(on.body.data.form.enabled).toBe(true);
    expect((await formsOf(owner.tenantId))[0].enabled).toBe(true);
  });

  it.each([
    [{}, 'Invalid form change: give at least one field to change'],
    [{ slug: 'renamed' }, 'Invalid form change: Unrecognized key: "slug"'],
    [{ name: '' }, 'Invalid form change: name: name is required'],
    [{ enabled: 'no' }, 'Invalid form change: enabled: enabled must be true or false'],
    [
      { fields: [{ name: 'x', type: 'select' }] },
      'Invalid form change: fields.0.options: a select field needs options',
    ],
  ])('%j -> 400 VALIDATION_ERROR, row unchanged', async (body, message) => {
    const before = await formsOf(owner.tenantId);
    const res = await api(owner).patch(`/api/crm/forms/${formId}`, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(await formsOf(owner.tenantId)).toEqual(before);
  });

  it('PATCH of an unknown id -> 404, nothing written', async () => {
    const before = await formsOf(owner.tenantId);
    const res = await api(owner).patch('/api/crm/forms/00000000-0000-4000-8000-000000000000', {
      name: 'x',
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Form not found' });
    expect(await formsOf(owner.tenantId)).toEqual(before);
  });

  it('there is no DELETE: disabling is the way to retire a form', async () => {
    const res = await api(owner).delete(`/api/crm/forms/${formId}`);
    expect(res.status).toBe(404);
    expect(await formsOf(owner.tenantId)).toHaveLength(1);
  });
});

describe('tenants apart', () => {
  let ownerA: Session;
  let ownerB: Session;
  let formB: string;
  beforeAll(async () => {
    ownerA = await tenantSession(stack, database, 'owner');
    ownerB = await tenantSession(stack, database, 'owner');
    const res = await api(ownerB).post('/api/crm/forms', { slug: 'secret', name: 'B only' });
    formB = res.body.data.form.id;
  });

  it("tenant A cannot read or update tenant B's form: 404, B's row unchanged", async () => {
    const before = await formsOf(ownerB.tenantId);
    const read = await api(ownerA).get(`/api/crm/forms/${formB}`);
    expect(read.status).toBe(404);
    expect(read.body).toMatchObject({ code: 'NOT_FOUND', message: 'Form not found' });
    for (const change of [{ name: 'stolen' }, { enabled: false }]) {
      const res = await api(ownerA).patch(`/api/crm/forms/${formB}`, change);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Form not found' });
    }
    expect(await formsOf(ownerB.tenantId)).toEqual(before);
    expect(JSON.stringify((await api(ownerA).get('/api/crm/forms')).body)).not.toContain(formB);
  });

  it('a header naming tenant B does not switch tenants', async () => {
    const res = await request(stack.url)
      .get(`/api/crm/forms/${formB}`)
      .set('Cookie', ownerA.cookie)
      .set('x-tenant-id', ownerB.tenantId);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'TENANT_ACCESS_DENIED' });
  });
});

describe('roles', () => {
  let owner: Session;
  let formId: string;
  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    const res = await api(owner).post('/api/crm/forms', { slug: 'roles', name: 'Roles' });
    formId = res.body.data.form.id;
  });

  it('an admin manages forms', async () => {
    const admin = await tenantSession(stack, database, 'admin');
    const created = await api(admin).post('/api/crm/forms', { slug: 'by-admin', name: 'A' });
    expect(created.status).toBe(201);
    const id = created.body.data.form.id;
    expect((await api(admin).get('/api/crm/forms')).status).toBe(200);
    expect((await api(admin).get(`/api/crm/forms/${id}`)).status).toBe(200);
    expect((await api(admin).patch(`/api/crm/forms/${id}`, { enabled: false })).status).toBe(200);
  });

  it.each([
    ['member', 'This action needs one of the roles: owner, admin'],
    // A viewer's writes are refused before the role check (the gateway's viewer rule).
    ['viewer', 'Viewers may only read'],
  ] as const)(
    'a %s gets 403 FORBIDDEN on every form route, nothing written',
    async (role, writeMessage) => {
      const user = await createAccount(database, role);
      await addMember(database, owner.tenantId, user.id, role);
      const session = {
        ...owner,
        userId: user.id,
        cookie: await signIn(stack.gateway.app, user.email),
      };
      const before = await formsOf(owner.tenantId);
      const reads = [
        api(session).get('/api/crm/forms'),
        api(session).get(`/api/crm/forms/${formId}`),
      ];
      const writes = [
        api(session).post('/api/crm/forms', { slug: `by-${role}`, name: 'x' }),
        api(session).patch(`/api/crm/forms/${formId}`, { name: 'changed' }),
      ];
      for (const [attempts, message] of [
        [reads, 'This action needs one of the roles: owner, admin'],
        [writes, writeMessage],
      ] as const) {
        for (const res of await Promise.all(attempts)) {
          expect(res.status).toBe(403);
          expect(res.body).toEqual({
            success: false,
            error: 'Forbidden',
            code: 'FORBIDDEN',
            message,
            details: null,
          });
        }
      }
      expect(await formsOf(owner.tenantId)).toEqual(before);
    },
  );

  it('without a session -> 401 Unauthorized', async () => {
    const res = await request(stack.url).get('/api/crm/forms');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: 'Unauthorized' });
  });

  it('crm-api reached directly without an identity -> 401', async () => {
    const res = await request(stack.serviceUrl)
      .post('/api/crm/forms')
      .send({ slug: 'x', name: 'x' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: 'Unauthorized' });
  });
});
