import { withSystemScope, withTenant } from '@crm/shared/db';
import { sessionClient, tenantSession, testDb, tenantRowCounts } from '@crm/test-kit';
import request from 'supertest';
import { useStack } from './support/stack';

/**
 * Input Postgres cannot store (U+0000, an unpaired UTF-16 surrogate), JSON
 * nested far deeper than any client needs, and dates outside Postgres's range used to reach
 * the database and answer 500. Through the real gateway in front of the real crm-api, each is
 * now a 400 VALIDATION_ERROR naming the field, and the tenant's rows are as they were.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>> & { slug: string };

let owner: Session;
beforeAll(async () => {
  const session = await tenantSession(stack, database, 'owner');
  const { slug } = await withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('tenants')
      .select('slug')
      .where('id', '=', session.tenantId)
      .executeTakeFirstOrThrow(),
  );
  owner = { ...session, slug };
  const form = await api().post('/api/crm/forms', {
    slug: 'contact',
    name: 'Contact',
    fields: [{ name: 'email', type: 'email', required: true }, { name: 'first_name' }],
  });
  expect(form.status).toBe(201);
});

const api = () => sessionClient(stack.url, owner.cookie);

/** A JSON text nesting `levels` arrays around `inner`. */
const nestedArrays = (levels: number, inner = '1') =>
  '['.repeat(levels) + inner + ']'.repeat(levels);

/** The path of the first container deeper than 64 levels, below `prefix` (at `depth`). */
const tooDeepPath = (prefix: string, depth: number) => prefix + '.0'.repeat(65 - depth);

/** The 400 of the hostile-input guard: VALIDATION_ERROR naming the path (zod issue shape). */
function expectRefused(
  res: request.Response,
  path: string,
  code: string,
  where = 'request body',
): void {
  expect({ status: res.status, body: res.body }).toMatchObject({
    status: 400,
    body: {
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      details: { issues: [{ path, code, message: expect.any(String) }] },
    },
  });
  expect(res.body.message).toBe(
    `Invalid ${where}: ${path ? `${path}: ` : ''}${res.body.details.issues[0].message}`,
  );
}

/** Runs `send` and checks that the tenant's rows (every tenant table) did not change. */
async function writesNothing(send: () => Promise<request.Response>): Promise<request.Response> {
  const before = await tenantRowCounts(database, owner.tenantId);
  const res = await send();
  expect(await tenantRowCounts(database, owner.tenantId)).toEqual(before);
  return res;
}

const postJsonText = (path: string, text: string) =>
  request(stack.url)
    .post(path)
    .set('Cookie', owner.cookie)
    .set('content-type', 'application/json')
    .send(text);

describe('deals', () => {
  it.each([
    ['NUL in title', { title: 'Big\u0000deal' }, 'title', 'invalid_format'],
    ['a lone surrogate in title', { title: 'Big \ud800 deal' }, 'title', 'invalid_format'],
    [
      'NUL in a custom_fields value',
      { title: 'Deal', custom_fields: { note: 'a\u0000' } },
      'custom_fields.note',
      'invalid_format',
    ],
    [
      'NUL in a custom_fields key',
      { title: 'Deal', custom_fields: { 'a\u0000': 1 } },
      'custom_fields.a\\u0000',
      'invalid_key',
    ],
    [
      'a lone surrogate in a custom_fields key',
      { title: 'Deal', custom_fields: { '\udc00x': 1 } },
      'custom_fields.\\udc00x',
      'invalid_key',
    ],
    [
      'a nested lone surrogate',
      { title: 'Deal', custom_fields: { list: ['ok', { deep: 'x\udbff' }] } },
      'custom_fields.list.1.deep',
      'invalid_format',
    ],
    [
      'expected_close_date 0000-01-01',
      { title: 'Deal', expected_close_date: '0000-01-01' },
      'expected_close_date',
      'custom',
    ],
  ])('POST with %s -> 400 naming the field, no row', async (_case, body, path, code) => {
    const res = await writesNothing(() => api().post('/api/crm/deals', body));
    expectRefused(res, path, code, path === 'expected_close_date' ? 'deal' : 'request body');
  });

  it('POST with custom_fields nested 5,000 levels deep -> 400, no row', async () => {
    const text = `{"title":"Deal","custom_fields":{"a":${nestedArrays(5000)}}}`;
    const res = await writesNothing(() => postJsonText('/api/crm/deals', text));
    expectRefused(res, tooDeepPath('custom_fields.a', 3), 'too_big');
  });

  it('PATCH with NUL, a lone surrogate or year 0 -> 400, the deal unchanged', async () => {
    const created = await api().post('/api/crm/deals', { title: 'Deal to change' });
    expect(created.status).toBe(201);
    const path = `/api/crm/deals/${created.body.data.deal.id}`;
    expectRefused(
      await writesNothing(() => api().patch(path, { title: 'x\u0000' })),
      'title',
      'invalid_format',
    );
    expectRefused(
      await writesNothing(() => api().patch(path, { custom_fields: { k: '\ud800' } })),
      'custom_fields.k',
      'invalid_format',
    );
    expectRefused(
      await writesNothing(() => api().patch(path, { expected_close_date: '0000-12-31' })),
      'expected_close_date',
      'custom',
      'deal change',
    );
    const read = await api().get(path);
    expect(read.body.data.deal).toMatchObject({ title: 'Deal to change', custom_fields: {} });
  });

  it('keeps the dates Postgres can store: 0001-01-01 and 9999-12-31', async () => {
    for (const date of ['0001-01-01', '9999-12-31']) {
      const res = await api().post('/api/crm/deals', { title: 'Dated', expected_close_date: date });
      expect(res.status).toBe(201);
      expect(res.body.data.deal.expected_close_date).toEqual(expect.any(String));
    }
  });
});

describe('contacts and products', () => {
  it.each([
    ['NUL in first_name', { email: 'c@example.com', first_name: 'C\u0000' }, 'first_name'],
    ['a lone surrogate in company', { email: 'c@example.com', company: 'A\ud800' }, 'company'],
    [
      'NUL in a custom_fields value',
      { email: 'c@example.com', custom_fields: { note: 'a\u0000' } },
      'custom_fields.note',
    ],
  ])('POST a contact with %s -> 400 naming the field, no row', async (_case, body, path) => {
    const res = await writesNothing(() => api().post('/api/crm/contacts', body));
    expectRefused(res, path, 'invalid_format');
  });

  it('PATCH a contact or a product with NUL -> 400, neither changed', async () => {
    const created = await api().post('/api/crm/contacts', { email: 'keep@example.com' });
    expect(created.status).toBe(201);
    const contactPath = `/api/crm/contacts/${created.body.data.contact.id}`;
    expectRefused(
      await writesNothing(() => api().patch(contactPath, { last_name: 'x\u0000' })),
      'last_name',
      'invalid_format',
    );
    const { id } = await withTenant(database.db, owner.tenantId, (trx) =>
      trx
        .insertInto('crm_products')
        .values({ tenant_id: owner.tenantId, sku: 'HOSTILE-1', name: 'Kept' })
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    expectRefused(
      await writesNothing(() => api().patch(`/api/crm/products/${id}`, { name: 'x\u0000' })),
      'name',
      'invalid_format',
    );
    expect((await api().get(contactPath)).body.data.contact.last_name).toBeNull();
    expect((await api().get(`/api/crm/products/${id}`)).body.data.product.name).toBe('Kept');
  });
});

describe('forms', () => {
  it.each([
    ['NUL in the name', { slug: 'f-a', name: 'Form\u0000' }, 'name'],
    [
      'NUL in a label',
      { slug: 'f-b', name: 'Form', fields: [{ name: 'a', label: 'A\u0000' }] },
      'fields.0.label',
    ],
    [
      'a lone surrogate in an option',
      {
        slug: 'f-c',
        name: 'Form',
        fields: [{ name: 'a', type: 'select', options: ['ok', 'bad\ud800'] }],
      },
      'fields.0.options.1',
    ],
  ])('POST with %s -> 400 naming the field, no row', async (_case, body, path) => {
    const res = await writesNothing(() => api().post('/api/crm/forms', body));
    expectRefused(res, path, 'invalid_format');
  });

  it('PATCH with NUL in the name -> 400, no change', async () => {
    const list = await api().get('/api/crm/forms');
    const id = list.body.items[0].id as string;
    const res = await writesNothing(() => api().patch(`/api/crm/forms/${id}`, { name: '\u0000' }));
    expectRefused(res, 'name', 'invalid_format');
  });
});

describe('lead import', () => {
  it.each([
    ['NUL in an email', [{ email: 'a\u0000@example.com' }], 'leads.0.email', 'invalid_format'],
    [
      'NUL in a name of the fourth row',
      [
        { email: 'a@example.com' },
        { email: 'b@example.com' },
        { email: 'c@example.com' },
        { email: 'd@example.com', first_name: 'D\u0000' },
      ],
      'leads.3.first_name',
      'invalid_format',
    ],
    [
      'NUL in a custom_fields key',
      [{ email: 'a@example.com' }, { email: 'b@example.com', custom_fields: { 'a\u0000': 1 } }],
      'leads.1.custom_fields.a\\u0000',
      'invalid_key',
    ],
    [
      'a lone surrogate in an unknown column (kept in custom_fields)',
      [{ email: 'a@example.com', company: '\ud83d' }],
      'leads.0.company',
      'invalid_format',
    ],
  ])('with %s -> 400 naming the row and field, nothing written', async (_c, leads, path, code) => {
    const res = await writesNothing(() => api().post('/api/v1/import/leads', { leads }));
    expectRefused(res, path, code);
  });

  it('with a row nested 5,000 levels deep -> 400, nothing written', async () => {
    const text = `{"leads":[{"email":"deep@example.com","custom_fields":{"x":${nestedArrays(5000)}}}]}`;
    const res = await writesNothing(() => postJsonText('/api/v1/import/leads', text));
    expectRefused(res, tooDeepPath('leads.0.custom_fields.x', 5), 'too_big');
  });
});

describe('public form submissions (no session)', () => {
  const submit = () => request(stack.url).post(`/api/public/forms/${owner.slug}/contact/submit`);

  it('JSON with NUL in a field value -> 400, nothing written', async () => {
    const res = await writesNothing(() =>
      submit().send({ email: 'ann@example.com', first_name: 'Ann\u0000' }),
    );
    expectRefused(res, 'first_name', 'invalid_format');
  });

  it('JSON with a lone surrogate in a field name -> 400, nothing written', async () => {
    const res = await writesNothing(() =>
      submit().send({ email: 'ann@example.com', ['note\udfff']: 'x' }),
    );
    expectRefused(res, 'note\\udfff', 'invalid_key');
  });

  it('JSON nested 5,000 levels deep -> 400, nothing written', async () => {
    const text = `{"email":"ann@example.com","extra":${nestedArrays(5000)}}`;
    const res = await writesNothing(() =>
      submit().set('content-type', 'application/json').send(text),
    );
    expectRefused(res, tooDeepPath('extra', 2), 'too_big');
  });

  it('urlencoded with %00 in a value or a name -> 400, nothing written', async () => {
    expectRefused(
      await writesNothing(() =>
        submit().type('form').send('email=ann%40example.com&first_name=Ann%00'),
      ),
      'first_name',
      'invalid_format',
    );
    expectRefused(
      await writesNothing(() => submit().type('form').send('email=ann%40example.com&x%00y=1')),
      'x\\u0000y',
      'invalid_key',
    );
  });
});

describe('query strings', () => {
  it('GET /api/crm/leads?q=%00 -> 400 naming q', async () => {
    const res = await api().get('/api/crm/leads?q=%00');
    expectRefused(res, 'q', 'invalid_format', 'query string');
  });

  it('a NUL in any query parameter, even one the route ignores, or in its name -> 400', async () => {
    expectRefused(
      await api().get('/api/crm/deals?unused=a%00'),
      'unused',
      'invalid_format',
      'query string',
    );
    expectRefused(
      await api().get('/api/crm/forms?a%00=1'),
      'a\\u0000',
      'invalid_key',
      'query string',
    );
  });

  it.each([
    ['/api/crm/orders?status=paid%00', 'status'],
    ['/api/crm/calls?from=2026-01-01T00:00:00Z%00', 'from'],
    ['/api/crm/conversations?channel=chat%00', 'channel'],
    ['/api/crm/email-events/replies?contact_id=%00', 'contact_id'],
  ])(
    'a receiver record list refuses a NUL in its filter: GET %s -> 400 naming %s',
    async (path, name) => {
      expectRefused(await api().get(path), name, 'invalid_format', 'query string');
    },
  );
});

describe('exports', () => {
  it.each([
    ['NUL in the lead filter q', { resource: 'leads', filters: { q: 'a\u0000' } }, 'filters.q'],
    [
      'a lone surrogate in the lead filter source',
      { resource: 'leads', filters: { source: '\ud800' } },
      'filters.source',
    ],
    ['NUL in a column name', { resource: 'deals', columns: ['title\u0000'] }, 'columns.0'],
  ])('POST /api/exports with %s -> 400 naming the field', async (_case, body, path) => {
    const res = await writesNothing(() => api().post('/api/exports', { format: 'csv', ...body }));
    expectRefused(res, path, 'invalid_format');
  });
});
