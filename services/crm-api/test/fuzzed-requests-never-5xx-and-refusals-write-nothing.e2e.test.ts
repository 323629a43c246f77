import { withSystemScope, withTenant } from '@crm/shared/db';
import {
  tenantSession,
  testDb,
  sendFuzzedRequest,
  fuzzOptions,
  hostileBody,
  hostileHeaders,
  hostileQuery,
  hostileSegment,
  hostileText,
  type BodyPath,
  type FuzzedRequest,
  type HostileBody,
  tenantRowCounts,
} from '@crm/test-kit';
import fc from 'fast-check';
import request from 'supertest';
import { useStack } from './support/stack';

/**
 * Property-based: generated hostile bodies, keys, query strings, path
 * segments and headers at every crm-api route, through the real gateway. Whatever is sent:
 * never a 5xx, and a refused (4xx) request leaves every tenant table as it was. Seeded
 * (FUZZ_SEED, FC_SEED overrides); a failure prints the seed and the request to replay.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

let owner: Awaited<ReturnType<typeof tenantSession>>;
let tenantSlug: string;
let dealId: string;
let formId: string;
let leadId: string;
let contactId: string;
let productId: string;
let activityId: string;

beforeAll(async () => {
  owner = await tenantSession(stack, database, 'owner');
  ({ slug: tenantSlug } = await withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('tenants')
      .select('slug')
      .where('id', '=', owner.tenantId)
      .executeTakeFirstOrThrow(),
  ));
  const api = request(stack.url);
  const form = await api
    .post('/api/crm/forms')
    .set('Cookie', owner.cookie)
    .send({
      slug: 'contact',
      name: 'Contact',
      fields: [
        { name: 'email', type: 'email', required: true },
        { name: 'first_name' },
        { name: 'topic', type: 'select', options: ['a', 'b'] },
        { name: 'consent', type: 'checkbox' },
      ],
    });
  const other = await api
    .post('/api/crm/forms')
    .set('Cookie', owner.cookie)
    .send({ slug: 'to-patch', name: 'To patch' });
  const deal = await api
    .post('/api/crm/deals')
    .set('Cookie', owner.cookie)
    .send({ title: 'Fuzzed' });
  const lead = await api
    .post('/api/v1/import/leads')
    .set('Cookie', owner.cookie)
    .send({ leads: [{ email: 'fuzz@example.com' }] });
  expect([form.status, other.status, deal.status, lead.status]).toEqual([201, 201, 201, 200]);
  formId = other.body.data.form.id;
  dealId = deal.body.data.deal.id;
  leadId = lead.body.data[0].id;
  const contact = await api
    .post('/api/crm/contacts')
    .set('Cookie', owner.cookie)
    .send({ email: 'fuzzed-contact@example.com' });
  expect(contact.status).toBe(201);
  contactId = contact.body.data.contact.id;
  // Products and activities have no create route: MCP and migrate write them.
  await withTenant(database.db, owner.tenantId, async (trx) => {
    ({ id: productId } = await trx
      .insertInto('crm_products')
      .values({ tenant_id: owner.tenantId, sku: 'FUZZ-1' })
      .returning('id')
      .executeTakeFirstOrThrow());
    ({ id: activityId } = await trx
      .insertInto('crm_activities')
      .values({
        tenant_id: owner.tenantId,
        type: 'call',
        contact_id: contactId,
        custom_fields: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow());
  });
});

/** Mostly the session alone; sometimes hostile headers and cookies around it. */
const headers = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant({ cookie: owner.cookie }) },
    { weight: 1, arbitrary: hostileHeaders(owner.cookie) },
  );

const send = (req: FuzzedRequest) =>
  sendFuzzedRequest(stack.url, req, () => tenantRowCounts(database, owner.tenantId));

/** The body family of one JSON route: its valid body, the paths to spoil and objects to extend. */
function bodyProperty(
  method: string,
  path: () => string,
  valid: unknown,
  paths: BodyPath[],
  objects?: BodyPath[],
) {
  return fc.asyncProperty(
    hostileBody(valid, paths, objects),
    headers(),
    async (body: HostileBody, hdrs: Record<string, string>) =>
      send({ method, path: path(), headers: hdrs, body }),
  );
}

const RUNS = 60;

describe('JSON bodies', () => {
  it('POST /api/v1/import/leads', async () => {
    const valid = {
      leads: [
        {
          email: 'a@example.com',
          first_name: 'A',
          last_name: 'B',
          phone: '+1 555',
          status: 'new',
          source: 'web',
          custom_fields: { k: 'v' },
        },
      ],
    };
    const row = (field: string): BodyPath => ['leads', 0, field];
    await fc.assert(
      bodyProperty(
        'POST',
        () => '/api/v1/import/leads',
        valid,
        [
          ['leads'],
          ['leads', 0],
          ...['email', 'first_name', 'last_name', 'phone', 'status', 'source'].map(row),
          row('custom_fields'),
          ['leads', 0, 'custom_fields', 'k'],
        ],
        [[], ['leads', 0], ['leads', 0, 'custom_fields']],
      ),
      fuzzOptions(RUNS),
    );
  });

  const deal = {
    title: 'Deal',
    value: '10.50',
    currency: 'USD',
    stage: 'lead',
    expected_close_date: '2025-01-31',
    custom_fields: { a: 1 },
  };
  const dealPaths: BodyPath[] = [...Object.keys(deal).map((k) => [k]), ['custom_fields', 'a']];

  it('POST /api/crm/deals', async () => {
    await fc.assert(
      bodyProperty('POST', () => '/api/crm/deals', deal, dealPaths, [[], ['custom_fields']]),
      fuzzOptions(RUNS),
    );
  });

  it('PATCH /api/crm/deals/:id', async () => {
    await fc.assert(
      bodyProperty('PATCH', () => `/api/crm/deals/${dealId}`, deal, dealPaths, [
        [],
        ['custom_fields'],
      ]),
      fuzzOptions(RUNS),
    );
  });

  const contact = {
    email: 'fuzz-contact@example.com',
    phone: '+1 555 0100',
    external_id: 'ext-fuzz',
    first_name: 'F',
    last_name: 'Z',
    company: 'Acme',
    title: 'CTO',
    custom_fields: { a: 1 },
  };
  const contactPaths: BodyPath[] = [
    ...Object.keys(contact).map((k) => [k]),
    ['custom_fields', 'a'],
  ];

  it('POST /api/crm/contacts', async () => {
    await fc.assert(
      bodyProperty('POST', () => '/api/crm/contacts', contact, contactPaths, [
        [],
        ['custom_fields'],
      ]),
      fuzzOptions(RUNS),
    );
  });

  it('PATCH /api/crm/contacts/:id', async () => {
    await fc.assert(
      bodyProperty('PATCH', () => `/api/crm/contacts/${contactId}`, contact, contactPaths, [
        [],
        ['custom_fields'],
      ]),
      fuzzOptions(RUNS),
    );
  });

  it('PATCH /api/crm/products/:id', async () => {
    const product = {
      name: 'Plan',
      description: 'Yearly',
      price: '19.90',
      currency: 'EUR',
      active: true,
    };
    await fc.assert(
      bodyProperty(
        'PATCH',
        () => `/api/crm/products/${productId}`,
        product,
        Object.keys(product).map((k) => [k]),
        [[]],
      ),
      fuzzOptions(RUNS),
    );
  });

  const form = {
    slug: 'fuzzed',
    name: 'Form',
    fields: [
      { name: 'email', type: 'email', required: true, label: 'Email' },
      { name: 'topic', type: 'select', options: ['a', 'b'] },
    ],
    enabled: true,
  };
  const formPaths: BodyPath[] = [
    ['slug'],
    ['name'],
    ['fields'],
    ['enabled'],
    ['fields', 0],
    ['fields', 0, 'name'],
    ['fields', 0, 'type'],
    ['fields', 0, 'label'],
    ['fields', 0, 'required'],
    ['fields', 1, 'options'],
    ['fields', 1, 'options', 1],
  ];

  it('POST /api/crm/forms', async () => {
    await fc.assert(
      bodyProperty('POST', () => '/api/crm/forms', form, formPaths, [[], ['fields', 0]]),
      fuzzOptions(RUNS),
    );
  });

  it('PATCH /api/crm/forms/:id', async () => {
    const { slug: _slug, ...change } = form;
    await fc.assert(
      bodyProperty(
        'PATCH',
        () => `/api/crm/forms/${formId}`,
        change,
        formPaths.filter((p) => p[0] !== 'slug'),
        [[], ['fields', 1]],
      ),
      fuzzOptions(RUNS),
    );
  });

  it('POST /api/exports', async () => {
    const valid = {
      resource: 'leads',
      format: 'csv',
      filters: { q: 'a', status: 'new', source: 'web' },
      columns: ['email', 'first_name'],
    };
    await fc.assert(
      bodyProperty(
        'POST',
        () => '/api/exports',
        valid,
        [
          ['resource'],
          ['format'],
          ['filters'],
          ['filters', 'q'],
          ['filters', 'source'],
          ['columns'],
          ['columns', 1],
        ],
        [[], ['filters']],
      ),
      fuzzOptions(RUNS),
    );
  });

  it('POST /api/public/forms/:tenant/:form/submit (JSON, no session)', async () => {
    const valid = {
      email: 'ann@example.com',
      first_name: 'Ann',
      topic: 'a',
      consent: true,
      _hp: '',
    };
    await fc.assert(
      fc.asyncProperty(
        hostileBody(
          valid,
          Object.keys(valid).map((k) => [k]),
        ),
        fc.oneof(fc.constant({}), hostileHeaders()),
        async (body, hdrs) =>
          send({
            method: 'POST',
            path: `/api/public/forms/${tenantSlug}/contact/submit`,
            headers: hdrs,
            body,
          }),
      ),
      fuzzOptions(RUNS),
    );
  });
});

/** `name=value` pairs as a form body, names and values percent-encoded or raw. */
const formText = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom('email', 'first_name', 'topic', 'consent', '_hp'), hostileText),
      fc.oneof(fc.constant('ann@example.com'), hostileText),
      fc.boolean(),
    ),
    { maxLength: 5 },
  )
  .map((pairs) =>
    pairs
      .map(([name, value, raw]) => {
        const encode = (s: string) =>
          raw
            ? s.replace(/[&=]/g, '')
            : Buffer.from(s)
                .toString('latin1')
                .replace(
                  /[^A-Za-z0-9]/g,
                  (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
                );
        return `${encode(name)}=${encode(value)}`;
      })
      .join('&'),
  );

describe('form bodies, query strings, path segments', () => {
  it('POST /api/public/forms/:tenant/:form/submit (urlencoded)', async () => {
    await fc.assert(
      fc.asyncProperty(formText, async (text) =>
        send({
          method: 'POST',
          path: `/api/public/forms/${tenantSlug}/contact/submit`,
          body: { text, contentType: 'application/x-www-form-urlencoded', change: 'form' },
        }),
      ),
      fuzzOptions(RUNS),
    );
  });

  it('GET lists with hostile query strings and headers', async () => {
    const lists: Array<[string, string[]]> = [
      ['/api/crm/leads', ['status', 'source', 'q', 'cursor']],
      ['/api/crm/deals', ['stage', 'assigned_to', 'limit']],
      ['/api/crm/forms', ['enabled']],
      ['/api/crm/contacts', ['q', 'cursor']],
      ['/api/crm/products', []],
      ['/api/crm/activities', ['lead_id', 'contact_id', 'deal_id']],
      ['/api/crm/conversations', ['channel', 'status', 'contact_id']],
      ['/api/crm/orders', ['contact_id', 'connection_id', 'status', 'from', 'to']],
      ['/api/crm/payments', ['contact_id', 'connection_id', 'kind', 'from', 'to']],
      ['/api/crm/calls', ['number_id', 'status', 'from', 'to']],
      ['/api/crm/email-events/opens', ['message_id', 'lead_id', 'contact_id', 'from', 'to']],
      ['/api/crm/email-events/clicks', ['message_id', 'lead_id', 'contact_id', 'from', 'to']],
      ['/api/crm/email-events/replies', ['message_id', 'lead_id', 'contact_id', 'from', 'to']],
      ['/api/crm/network-events', ['account_id', 'kind', 'from', 'to']],
      [`/api/crm/leads/${leadId}/timeline`, ['limit', 'cursor']],
      [`/api/crm/contacts/${contactId}/timeline`, ['limit', 'cursor']],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...lists)
          .chain(([path, params]) => fc.tuple(fc.constant(path), hostileQuery(params))),
        headers(),
        async ([path, query], hdrs) => send({ method: 'GET', path: path + query, headers: hdrs }),
      ),
      fuzzOptions(RUNS * 2),
    );
  });

  it('routes with ids and slugs, given hostile segments', async () => {
    const routes: Array<[string, (s: string) => string, unknown]> = [
      ['GET', (s) => `/api/crm/leads/${s}`, undefined],
      ['GET', (s) => `/api/crm/leads/${s}/timeline`, undefined],
      ['GET', (s) => `/api/crm/contacts/${s}/timeline`, undefined],
      ['GET', (s) => `/api/crm/deals/${s}`, undefined],
      ['PATCH', (s) => `/api/crm/deals/${s}`, { title: 'x' }],
      ['DELETE', (s) => `/api/crm/deals/${s}`, undefined],
      ['GET', (s) => `/api/crm/contacts/${s}`, undefined],
      ['PATCH', (s) => `/api/crm/contacts/${s}`, { first_name: 'x' }],
      ['DELETE', (s) => `/api/crm/contacts/${s}`, undefined],
      ['GET', (s) => `/api/crm/products/${s}`, undefined],
      ['PATCH', (s) => `/api/crm/products/${s}`, { name: 'x' }],
      ['GET', (s) => `/api/crm/activities/${s}`, undefined],
      ['GET', (s) => `/api/crm/conversations/${s}`, undefined],
      ['GET', (s) => `/api/crm/conversations/${s}/messages`, undefined],
      ['GET', (s) => `/api/crm/orders/${s}`, undefined],
      ['GET', (s) => `/api/crm/payments/${s}`, undefined],
      ['GET', (s) => `/api/crm/calls/${s}`, undefined],
      ['GET', (s) => `/api/crm/email-events/opens/${s}`, undefined],
      ['GET', (s) => `/api/crm/email-events/clicks/${s}`, undefined],
      ['GET', (s) => `/api/crm/email-events/replies/${s}`, undefined],
      ['GET', (s) => `/api/crm/network-events/${s}`, undefined],
      ['GET', (s) => `/api/crm/forms/${s}`, undefined],
      ['PATCH', (s) => `/api/crm/forms/${s}`, { name: 'x' }],
      ['POST', (s) => `/api/public/forms/${s}/contact/submit`, { email: 'a@example.com' }],
      ['POST', (s) => `/api/public/forms/${tenantSlug}/${s}/submit`, { email: 'a@example.com' }],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        hostileSegment,
        async ([method, at, body], segment) =>
          send({
            method,
            path: at(segment),
            headers: { cookie: owner.cookie },
            body:
              body === undefined
                ? undefined
                : { text: JSON.stringify(body), contentType: 'application/json', change: 'none' },
          }),
      ),
      fuzzOptions(RUNS * 2),
    );
    // The stored records the other properties changed are still readable.
    for (const path of [
      `/api/crm/leads/${leadId}`,
      `/api/crm/deals/${dealId}`,
      `/api/crm/contacts/${contactId}`,
      `/api/crm/products/${productId}`,
      `/api/crm/activities/${activityId}`,
    ]) {
      const res = await request(stack.url).get(path).set('Cookie', owner.cookie);
      expect(res.status).toBe(200);
    }
  });
});
