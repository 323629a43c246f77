import { withSystemScope, withTenant } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  outboxEvents,
  signIn,
  tenantSession,
  testDb,
} from '@crm/test-kit';
import request from 'supertest';
import { useStack } from './support/stack';

const database = testDb();
const stack = useStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;

function contactsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_contacts')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('email')
      .execute(),
  );
}
function productsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx.selectFrom('crm_products').selectAll().where('tenant_id', '=', tenantId).execute(),
  );
}
function eventsOf(tenantId: string) {
  return outboxEvents(database, tenantId);
}
async function eventTypes(tenantId: string) {
  return (await eventsOf(tenantId)).map((e) => e.type);
}

async function viewerOf(tenantId: string): Promise<string> {
  const viewer = await createAccount(database, 'viewer');
  await addMember(database, tenantId, viewer.id, 'viewer');
  return signIn(stack.gateway.app, viewer.email);
}

async function createContact(cookie: string, body: object) {
  const res = await request(stack.url).post('/api/crm/contacts').set('Cookie', cookie).send(body);
  expect(res.status).toBe(201);
  return res.body.data.contact as { id: string; email: string | null };
}

describe('/api/crm/contacts', () => {
  it('creates a contact -> 201 { contact }, with its row and a contact.created event', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url)
      .post('/api/crm/contacts')
      .set('Cookie', cookie)
      .send({
        email: '  Ann@Example.COM ',
        first_name: 'Ann',
        last_name: 'Lee',
        phone: '+1 555 0100',
        company: 'Acme',
        title: 'CTO',
        external_id: 'ext-1',
        custom_fields: { tier: 'gold' },
      });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Contact created',
      data: {
        contact: expect.objectContaining({
          email: 'ann@example.com',
          first_name: 'Ann',
          last_name: 'Lee',
          phone: '+1 555 0100',
          company: 'Acme',
          title: 'CTO',
          external_id: 'ext-1',
          custom_fields: { tier: 'gold' },
        }),
      },
    });
    const rows = await contactsOf(tenantId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: res.body.data.contact.id, email: 'ann@example.com' });
    const events = await eventsOf(tenantId);
    expect(events.map((e) => e.type)).toEqual(['contact.created']);
    expect(events[0].envelope).toMatchObject({
      type: 'contact.created',
      record: { module: 'contacts', id: res.body.data.contact.id },
      data: { email: 'ann@example.com', source: 'api', external_id: 'ext-1' },
    });
  });

  it('refuses a second contact with the same email or external_id: 409 ALREADY_EXISTS, nothing written', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    await createContact(cookie, { email: 'dup@example.com', external_id: 'x-1' });
    for (const [body, message] of [
      [{ email: 'DUP@example.com' }, 'A contact with email dup@example.com already exists'],
      [
        { email: 'other@example.com', external_id: 'x-1' },
        'A contact with external_id x-1 already exists',
      ],
    ] as const) {
      const res = await request(stack.url)
        .post('/api/crm/contacts')
        .set('Cookie', cookie)
        .send(body);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, code: 'ALREADY_EXISTS', message });
    }
    expect((await contactsOf(tenantId)).map((c) => c.email)).toEqual(['dup@example.com']);
    expect(await eventTypes(tenantId)).toEqual(['contact.created']);
  });

  it('the same email in another tenant is no duplicate', async () => {
    const a = await tenantSession(stack, database);
    const b = await tenantSession(stack, database);
    await createContact(a.cookie, { email: 'shared@example.com' });
    await createContact(b.cookie, { email: 'shared@example.com' });
    expect(await contactsOf(b.tenantId)).toHaveLength(1);
  });

  it.each([
    [{}, 'email or phone is required (a contact is matched by external_id, else by email)'],
    [{ email: 'not-an-email' }, 'email must be an email address such as ann@example.com'],
    [{ phone: 5 }, 'phone must be a string of at most 100 characters'],
    [
      { email: 'a@example.com', first_name: 'x'.repeat(201) },
      'first_name must be a string of at most 200 characters',
    ],
    [
      { email: 'a@example.com', custom_fields: [1] },
      'custom_fields must be an object of key/values',
    ],
    [
      { email: 'a@example.com', nickname: 'A' },
      'Unknown field nickname: a contact has external_id, email, phone, first_name, last_name, company, title, custom_fields',
    ],
  ])('rejects %j with 400 VALIDATION_ERROR (%s), writing nothing', async (body, message) => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url).post('/api/crm/contacts').set('Cookie', cookie).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.details.issues.map((i: { message: string }) => i.message)).toContain(message);
    expect(await contactsOf(tenantId)).toEqual([]);
    expect(await eventTypes(tenantId)).toEqual([]);
  });

  it('reads, changes (contact.updated) and deletes (contact.deleted) a contact', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const created = await createContact(cookie, {
      email: 'life@example.com',
      first_name: 'Life',
      custom_fields: { a: 1 },
    });
    const read = await request(stack.url)
      .get(`/api/crm/contacts/${created.id}`)
      .set('Cookie', cookie);
    expect(read.status).toBe(200);
    expect(read.body.data.contact).toMatchObject({ id: created.id, first_name: 'Life' });

    const patched = await request(stack.url)
      .patch(`/api/crm/contacts/${created.id}`)
      .set('Cookie', cookie)
      .send({ first_name: 'Renamed', phone: '+44 20', custom_fields: { b: 2 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ success: true, message: 'Contact updated' });
    expect(patched.body.data.contact).toMatchObject({
      email: 'life@example.com',
      first_name: 'Renamed',
      phone: '+44 20',
      custom_fields: { a: 1, b: 2 },
    });
    expect((await contactsOf(tenantId))[0]).toMatchObject({
      first_name: 'Renamed',
      phone: '+44 20',
      custom_fields: { a: 1, b: 2 },
    });

    const deleted = await request(stack.url)
      .delete(`/api/crm/contacts/${created.id}`)
      .set('Cookie', cookie);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ success: true, data: { id: created.id } });
    expect(await contactsOf(tenantId)).toEqual([]);
    expect(
      (await request(stack.url).get(`/api/crm/contacts/${created.id}`).set('Cookie', cookie))
        .status,
    ).toBe(404);
    expect(
      (await request(stack.url).delete(`/api/crm/contacts/${created.id}`).set('Cookie', cookie))
        .status,
    ).toBe(404);
    const events = await eventsOf(tenantId);
    expect(events.map((e) => e.type)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.deleted',
    ]);
    expect(events.map((e) => e.envelope)).toEqual([
      expect.objectContaining({ record: { module: 'contacts', id: created.id } }),
      expect.objectContaining({ data: expect.objectContaining({ phone: '+44 20' }) }),
      expect.objectContaining({ record: { module: 'contacts', id: created.id } }),
    ]);
  });

  it('deleting a contact keeps the deals and activities that named it, with the link cleared', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const contact = await createContact(cookie, { email: 'linked@example.com' });
    const deal = await request(stack.url)
      .post('/api/crm/deals')
      .set('Cookie', cookie)
      .send({ title: 'Linked deal', contact_id: contact.id });
    expect(deal.status).toBe(201);
    await withTenant(database.db, tenantId, (trx) =>
      trx
        .insertInto('crm_activities')
        .values({ tenant_id: tenantId, type: 'call', contact_id: contact.id, custom_fields: '{}' })
        .execute(),
    );
    await request(stack.url)
      .delete(`/api/crm/contacts/${contact.id}`)
      .set('Cookie', cookie)
      .expect(200);
    const linked = await withSystemScope(database.db, async (trx) => ({
      deals: await trx
        .selectFrom('crm_deals')
        .select(['title', 'contact_id'])
        .where('tenant_id', '=', tenantId)
        .execute(),
      activities: await trx
        .selectFrom('crm_activities')
        .select(['type', 'contact_id'])
        .where('tenant_id', '=', tenantId)
        .execute(),
    }));
    expect(linked).toEqual({
      deals: [{ title: 'Linked deal', contact_id: null }],
      activities: [{ type: 'call', contact_id: null }],
    });
  });

  it('refuses a change that is empty, bad, clears both email and phone, or takes another contact’s email, writing nothing', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const ann = await createContact(cookie, { email: 'ann@example.com' });
    await createContact(cookie, { email: 'bob@example.com' });
    const patch = (body: object) =>
      request(stack.url).patch(`/api/crm/contacts/${ann.id}`).set('Cookie', cookie).send(body);
    for (const [body, status, code] of [
      [{}, 400, 'VALIDATION_ERROR'],
      [{ email: 'nope' }, 400, 'VALIDATION_ERROR'],
      [{ email: null }, 400, 'VALIDATION_ERROR'],
      [{ email: 'BOB@example.com' }, 409, 'ALREADY_EXISTS'],
    ] as const) {
      const res = await patch(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status, code });
    }
    expect((await contactsOf(tenantId)).map((c) => c.email)).toEqual([
      'ann@example.com',
      'bob@example.com',
    ]);
    expect(await eventTypes(tenantId)).toEqual(['contact.created', 'contact.created']);
    // Clearing the email is fine while a phone remains.
    await patch({ phone: '+1 555' }).expect(200);
    const cleared = await patch({ email: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.contact).toMatchObject({ email: null, phone: '+1 555' });
  });

  it('pages with the shared helper, sorts by the indexed columns, and searches q in names and email', async () => {
    const { cookie } = await tenantSession(stack, database);
    for (const [email, last_name] of [
      ['cat@example.com', 'Adams'],
      ['ann@example.com', 'Cole'],
      ['anna_b@example.com', 'Baker'],
      ['annex@other.org', 'Dune'],
    ]) {
      await createContact(cookie, { email, last_name });
    }
    await createContact(cookie, { phone: '+1 000', last_name: 'Phone' });
    const list = (query: string) =>
      request(stack.url).get(`/api/crm/contacts?${query}`).set('Cookie', cookie);

    const paged = await list('page=2&pageSize=2&sortBy=email&sortOrder=asc');
    expect(paged.status).toBe(200);
    // A CursorPage, like the lead list (cursors: contact-list-pages-by-cursor-and-caps-its-count).
    expect(Object.keys(paged.body).sort()).toEqual([
      'items',
      'nextCursor',
      'page',
      'pageSize',
      'total',
      'totalExact',
      'totalPages',
    ]);
    expect(paged.body).toMatchObject({
      total: 5,
      totalExact: true,
      page: 2,
      pageSize: 2,
      totalPages: 3,
    });
    expect(typeof paged.body.nextCursor).toBe('string');
    expect(paged.body.items.map((c: { email: string }) => c.email)).toEqual([
      'annex@other.org',
      'cat@example.com',
    ]);

    const emails = async (query: string) =>
      (await list(`sortBy=email&sortOrder=asc&${query}`)).body.items.map(
        (c: { email: string }) => c.email,
      );
    expect(await emails('q=ANN')).toEqual([
      'ann@example.com',
      'anna_b@example.com',
      'annex@other.org',
    ]);
    expect(await emails('q=ann@example.com')).toEqual(['ann@example.com']);
    // `_` and `%` are literal, not wildcards; names, phone and company are searched too.
    expect(await emails('q=ann_')).toEqual([]);
    expect(await emails('q=anna_')).toEqual(['anna_b@example.com']);
    expect(await emails('q=%25')).toEqual([]);
    expect(await emails('q=Baker')).toEqual(['anna_b@example.com']);

    const byName = await list('sortBy=last_name&sortOrder=asc');
    expect(byName.body.items.map((c: { last_name: string }) => c.last_name)).toEqual([
      'Adams',
      'Baker',
      'Cole',
      'Dune',
      'Phone',
    ]);
    const newest = await list('pageSize=1');
    expect(newest.body.items[0].last_name).toBe('Phone');

    for (const query of [
      'pageSize=101',
      'sortBy=phone',
      'sortOrder=up',
      'page=0',
      `q=${'a'.repeat(321)}`,
    ]) {
      const res = await list(query);
      expect({ query, status: res.status, code: res.body.code }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_ERROR',
      });
    }
  });

  it("another tenant's contact is a 404 to read, change or delete, and never in the list", async () => {
    const a = await tenantSession(stack, database);
    const b = await tenantSession(stack, database);
    await createContact(a.cookie, { email: 'mine@example.com' });
    const theirs = await createContact(b.cookie, { email: 'secret@example.com' });
    for (const call of [
      request(stack.url).get(`/api/crm/contacts/${theirs.id}`),
      request(stack.url).patch(`/api/crm/contacts/${theirs.id}`).send({ first_name: 'x' }),
      request(stack.url).delete(`/api/crm/contacts/${theirs.id}`),
      request(stack.url).get('/api/crm/contacts/not-a-uuid'),
    ]) {
      const res = await call.set('Cookie', a.cookie);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Contact not found' });
    }
    const list = await request(stack.url).get('/api/crm/contacts?q=secret').set('Cookie', a.cookie);
    expect(list.body.items).toEqual([]);
    const all = await request(stack.url).get('/api/crm/contacts').set('Cookie', a.cookie);
    expect(all.body.items.map((c: { email: string }) => c.email)).toEqual(['mine@example.com']);
    expect((await contactsOf(b.tenantId))[0]).toMatchObject({ first_name: null });
    expect(await eventTypes(b.tenantId)).toEqual(['contact.created']);
  });

  it('a viewer lists and reads contacts but cannot create, change or delete them (403)', async () => {
    const owner: Session = await tenantSession(stack, database);
    const contact = await createContact(owner.cookie, { email: 'look@example.com' });
    const cookie = await viewerOf(owner.tenantId);
    expect((await request(stack.url).get('/api/crm/contacts').set('Cookie', cookie)).status).toBe(
      200,
    );
    expect(
      (await request(stack.url).get(`/api/crm/contacts/${contact.id}`).set('Cookie', cookie))
        .status,
    ).toBe(200);
    for (const res of await Promise.all([
      request(stack.url)
        .post('/api/crm/contacts')
        .set('Cookie', cookie)
        .send({ email: 'new@example.com' }),
      request(stack.url)
        .patch(`/api/crm/contacts/${contact.id}`)
        .set('Cookie', cookie)
        .send({ first_name: 'nope' }),
      request(stack.url).delete(`/api/crm/contacts/${contact.id}`).set('Cookie', cookie),
    ])) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const rows = await contactsOf(owner.tenantId);
    expect(rows.map((c) => [c.email, c.first_name])).toEqual([['look@example.com', null]]);
    expect(await eventTypes(owner.tenantId)).toEqual(['contact.created']);
  });
});

async function seedProducts(tenantId: string, skus: string[]) {
  return withTenant(database.db, tenantId, (trx) =>
    trx
      .insertInto('crm_products')
      .values(skus.map((sku) => ({ tenant_id: tenantId, sku, name: `Product ${sku}` })))
      .returning(['id', 'sku'])
      .execute(),
  );
}

describe('/api/crm/products', () => {
  it('lists a page sorted by sku, reads one, and changes it with a product.updated event', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const [first] = await seedProducts(tenantId, ['B-2', 'A-1', 'C-3']);
    const list = await request(stack.url)
      .get('/api/crm/products?sortBy=sku&sortOrder=asc&pageSize=2')
      .set('Cookie', cookie);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 3, page: 1, pageSize: 2, totalPages: 2 });
    expect(list.body.items.map((p: { sku: string }) => p.sku)).toEqual(['A-1', 'B-2']);

    const read = await request(stack.url)
      .get(`/api/crm/products/${first.id}`)
      .set('Cookie', cookie);
    expect(read.status).toBe(200);
    expect(read.body.data.product).toMatchObject({ id: first.id, sku: 'B-2', active: true });

    const patched = await request(stack.url)
      .patch(`/api/crm/products/${first.id}`)
      .set('Cookie', cookie)
      .send({ price: '19.90', currency: 'eur', active: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ success: true, message: 'Product updated' });
    expect(patched.body.data.product).toMatchObject({
      sku: 'B-2',
      name: 'Product B-2',
      price: '19.90',
      currency: 'EUR',
      active: false,
    });
    const row = (await productsOf(tenantId)).find((p) => p.id === first.id);
    expect(row).toMatchObject({ price: '19.90', currency: 'EUR', active: false });
    const events = await eventsOf(tenantId);
    expect(events.map((e) => e.type)).toEqual(['product.updated']);
    expect(events[0].envelope).toMatchObject({
      record: { module: 'products', id: first.id },
      data: { sku: 'B-2', price: '19.90', currency: 'EUR', active: false },
    });
  });

  it('refuses a bad or empty change, or a change of the sku, with 400 and writes nothing', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const [product] = await seedProducts(tenantId, ['K-1']);
    for (const [body, message] of [
      [{}, 'give at least one field to change'],
      [
        { price: -1 },
        'price must be a decimal >= 0 such as 19.99 (at most 15 digits before the point and 6 after)',
      ],
      [{ currency: 'XYZ1' }, 'currency must be an ISO 4217 code such as USD, EUR or GBP'],
      [{ active: 'yes' }, 'active must be true or false'],
      [
        { sku: 'K-2' },
        'Unknown field sku: a product change has name, description, price, currency, active',
      ],
    ] as const) {
      const res = await request(stack.url)
        .patch(`/api/crm/products/${product.id}`)
        .set('Cookie', cookie)
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.issues.map((i: { message: string }) => i.message)).toContain(message);
    }
    expect(await productsOf(tenantId)).toEqual([
      expect.objectContaining({ sku: 'K-1', price: null, currency: null, active: true }),
    ]);
    expect(await eventTypes(tenantId)).toEqual([]);
  });

  it("another tenant's product is a 404 and never listed; a viewer reads but cannot change (403)", async () => {
    const a = await tenantSession(stack, database);
    const b = await tenantSession(stack, database);
    await seedProducts(a.tenantId, ['MINE']);
    const [theirs] = await seedProducts(b.tenantId, ['THEIRS']);
    for (const call of [
      request(stack.url).get(`/api/crm/products/${theirs.id}`),
      request(stack.url).patch(`/api/crm/products/${theirs.id}`).send({ name: 'x' }),
    ]) {
      const res = await call.set('Cookie', a.cookie);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Product not found' });
    }
    const list = await request(stack.url).get('/api/crm/products').set('Cookie', a.cookie);
    expect(list.body.items.map((p: { sku: string }) => p.sku)).toEqual(['MINE']);

    const cookie = await viewerOf(b.tenantId);
    const read = await request(stack.url)
      .get(`/api/crm/products/${theirs.id}`)
      .set('Cookie', cookie);
    expect(read.status).toBe(200);
    const denied = await request(stack.url)
      .patch(`/api/crm/products/${theirs.id}`)
      .set('Cookie', cookie)
      .send({ name: 'nope' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    expect((await productsOf(b.tenantId))[0]).toMatchObject({ name: 'Product THEIRS' });
    expect(await eventTypes(b.tenantId)).toEqual([]);
    expect(await eventTypes(a.tenantId)).toEqual([]);
  });
});

describe('/api/crm/activities', () => {
  it('lists newest first, filters by lead, contact and deal, reads one; other tenants see none', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const contact = await createContact(cookie, { email: 'act@example.com' });
    const deal = await request(stack.url)
      .post('/api/crm/deals')
      .set('Cookie', cookie)
      .send({ title: 'With activities' });
    const dealId = deal.body.data.deal.id as string;
    const lead = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({ leads: [{ email: 'act-lead@example.com' }] });
    const leadId = lead.body.data[0].id as string;
    const seeded = await withTenant(database.db, tenantId, (trx) =>
      trx
        .insertInto('crm_activities')
        .values([
          {
            tenant_id: tenantId,
            type: 'call',
            subject: 'old call',
            occurred_at: '2026-01-01T10:00:00Z',
            contact_id: contact.id,
            custom_fields: '{}',
          },
          {
            tenant_id: tenantId,
            type: 'note',
            subject: 'deal note',
            occurred_at: '2026-02-01T10:00:00Z',
            deal_id: dealId,
            contact_id: contact.id,
            custom_fields: '{}',
          },
          {
            tenant_id: tenantId,
            type: 'email',
            subject: 'lead email',
            occurred_at: '2026-03-01T10:00:00Z',
            lead_id: leadId,
            custom_fields: '{}',
          },
        ])
        .returning(['id', 'subject'])
        .execute(),
    );
    const subjects = async (query: string) => {
      const res = await request(stack.url)
        .get(`/api/crm/activities?${query}`)
        .set('Cookie', cookie);
      expect(res.status).toBe(200);
      return res.body.items.map((a: { subject: string }) => a.subject);
    };
    expect(await subjects('')).toEqual(['lead email', 'deal note', 'old call']);
    expect(await subjects('sortOrder=asc')).toEqual(['old call', 'deal note', 'lead email']);
    expect(await subjects(`contact_id=${contact.id}`)).toEqual(['deal note', 'old call']);
    expect(await subjects(`deal_id=${dealId}`)).toEqual(['deal note']);
    expect(await subjects(`lead_id=${leadId}`)).toEqual(['lead email']);
    expect(await subjects(`lead_id=${leadId}&contact_id=${contact.id}`)).toEqual([]);
    const page = await request(stack.url)
      .get('/api/crm/activities?pageSize=2&page=2')
      .set('Cookie', cookie);
    expect(page.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });

    const one = seeded.find((a) => a.subject === 'deal note')!;
    const read = await request(stack.url)
      .get(`/api/crm/activities/${one.id}`)
      .set('Cookie', cookie);
    expect(read.status).toBe(200);
    expect(read.body.data.activity).toMatchObject({
      id: one.id,
      type: 'note',
      deal_id: dealId,
      contact_id: contact.id,
      lead_id: null,
    });

    for (const query of ['lead_id=nope', 'sortBy=subject', 'pageSize=0']) {
      const res = await request(stack.url)
        .get(`/api/crm/activities?${query}`)
        .set('Cookie', cookie);
      expect({ query, status: res.status, code: res.body.code }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_ERROR',
      });
    }

    const other = await tenantSession(stack, database);
    const theirs = await request(stack.url).get('/api/crm/activities').set('Cookie', other.cookie);
    expect(theirs.body).toMatchObject({ items: [], total: 0 });
    for (const id of [one.id, 'not-a-uuid']) {
      const res = await request(stack.url)
        .get(`/api/crm/activities/${id}`)
        .set('Cookie', other.cookie);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Activity not found' });
    }
    // A viewer reads them.
    const viewer = await viewerOf(tenantId);
    expect(
      (await request(stack.url).get(`/api/crm/activities/${one.id}`).set('Cookie', viewer)).status,
    ).toBe(200);
  });
});
