import { createHmac, randomUUID } from 'node:crypto';
import { SYSTEM_ROLE, withSystemScope, type Db } from '@crm/shared/db';
import { signSvcRequest } from '@crm/shared/crypto';
import {
  createTenant,
  insertRow,
  outboxEvents,
  tenantRowCounts,
  tenantRows,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { service } from '../src/main';

const SECRET = 'migrate-test-signing-secret';
const PATH = '/api/migrate/ingest';
const stack = useServiceBehindGateway(service, { SVC_MIGRATE_SIGNING_SECRET: SECRET });
let db: Db;
let tenant: { id: string; slug: string };

beforeAll(async () => {
  db = testDb();
});
afterAll(() => db.close());
beforeEach(async () => {
  tenant = await createTenant(db);
});

/**
 * The specified signing recipe, written here with node:crypto alone (not the project's signer):
 * method, path, timestamp in ms, nonce and raw body joined by "\n", HMAC-SHA256 keyed by the
 * secret, hex.
 */
function specSignature(
  secret: string,
  method: string,
  path: string,
  ts: string,
  nonce: string,
  body: string,
) {
  return createHmac('sha256', secret)
    .update([method, path, ts, nonce, body].join('\n'))
    .digest('hex');
}

function signedHeaders(body: string, over: { ts?: number; nonce?: string; secret?: string } = {}) {
  const ts = String(over.ts ?? Date.now());
  const nonce = over.nonce ?? randomUUID();
  return {
    'content-type': 'application/json',
    'x-svc-timestamp': ts,
    'x-svc-nonce': nonce,
    'x-svc-signature': specSignature(over.secret ?? SECRET, 'POST', PATH, ts, nonce, body),
  };
}

function send(body: string, headers: Record<string, string>) {
  return request(stack.url).post(PATH).set(headers).send(body);
}

function leadsBody(records: unknown[], extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    tenant: tenant.slug,
    source_system: 'hubspot',
    entity: 'leads',
    records,
    ...extra,
  });
}

/** The tenant's source-id mappings (the table has no id column for tenantRows to order by). */
async function mappingsOf(tenantId: string) {
  const { rows } = await sql<{ external_id: string; record_id: string }>`
    SELECT external_id, record_id FROM migration_records WHERE tenant_id = ${tenantId}
    ORDER BY external_id`.execute(db.db);
  return rows;
}

describe('POST /api/migrate/ingest through the gateway', () => {
  it('ingests a request signed from the specified recipe: leads land in crm_leads with their mappings and events', async () => {
    const body = leadsBody([
      { external_id: 'h-1', email: 'Ann@Example.com', first_name: 'Ann', company: 'Acme' },
      { external_id: 'h-2', email: 'bob@example.com', source: 'Web' },
    ]);
    const res = await send(body, signedHeaders(body));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      entity: 'leads',
      received: 2,
      created: 2,
      updated: 0,
      failed: 0,
      errors: [],
    });
    const leads = await tenantRows(db, 'crm_leads', tenant.id);
    expect(leads.map((l) => l.email).sort()).toEqual(['ann@example.com', 'bob@example.com']);
    const ann = leads.find((l) => l.email === 'ann@example.com');
    expect(ann).toMatchObject({ first_name: 'Ann', custom_fields: { company: 'Acme' } });
    const mappings = await mappingsOf(tenant.id);
    expect(mappings.map((m) => [m.external_id, m.record_id]).sort()).toEqual(
      [
        ['h-1', ann?.id],
        ['h-2', leads.find((l) => l.email === 'bob@example.com')?.id],
      ].sort(),
    );
    const events = await outboxEvents(db, tenant.id);
    expect(events.map((e) => e.type)).toEqual(['lead.created', 'lead.created']);
  });

  it('a re-run updates and creates nothing new; a retry with a new nonce and timestamp succeeds', async () => {
    const records = [{ external_id: 'h-1', email: 'ann@example.com', first_name: 'Ann' }];
    const first = leadsBody(records);
    expect((await send(first, signedHeaders(first))).body.created).toBe(1);
    const again = leadsBody([{ ...records[0], first_name: 'Anne' }]);
    const res = await send(again, signedHeaders(again));
    expect(res.body).toMatchObject({ created: 0, updated: 1, failed: 0 });
    const leads = await tenantRows(db, 'crm_leads', tenant.id);
    expect(leads).toHaveLength(1);
    expect(leads[0].first_name).toBe('Anne');
    expect(await mappingsOf(tenant.id)).toHaveLength(1);
  });

  describe('leads follow their source id, not their email', () => {
    const ingest = async (records: unknown[]) => {
      const body = leadsBody(records);
      const res = await send(body, signedHeaders(body));
      expect(res.status).toBe(200);
      return res.body;
    };
    const leadRows = async () =>
      (await tenantRows(db, 'crm_leads', tenant.id)).map((l) => ({
        id: l.id,
        email: l.email,
        first_name: l.first_name,
      }));

    it('a re-run with a changed email updates the same lead (lead.updated), no second lead', async () => {
      expect(
        await ingest([{ external_id: 'X', email: 'a@x.com', first_name: 'Ann' }]),
      ).toMatchObject({ created: 1, updated: 0, failed: 0 });
      const [before] = await leadRows();
      const again = await ingest([{ external_id: 'X', email: 'b@x.com' }]);
      expect(again).toMatchObject({ created: 0, updated: 1, failed: 0, errors: [] });
      expect(await leadRows()).toEqual([{ id: before.id, email: 'b@x.com', first_name: 'Ann' }]);
      expect(await mappingsOf(tenant.id)).toEqual([{ external_id: 'X', record_id: before.id }]);
      const events = await outboxEvents(db, tenant.id);
      expect(events.map((e) => e.type)).toEqual(['lead.created', 'lead.updated']);
      expect(events[1].envelope).toMatchObject({
        record: { module: 'leads', id: before.id },
        data: { email: 'b@x.com' },
      });
    });

    it("an email that belongs to another lead of the tenant is that record's error; both leads stay as they were", async () => {
      await ingest([{ external_id: 'X', email: 'a@x.com', first_name: 'Ann' }]);
      await insertRow(db, 'crm_leads', {
        tenant_id: tenant.id,
        email: 'c@x.com',
        first_name: 'Cy',
      });
      const before = await leadRows();
      const eventsBefore = await outboxEvents(db, tenant.id);
      const res = await ingest([
        { external_id: 'X', email: 'c@x.com', first_name: 'Changed' },
        { external_id: 'OK', email: 'ok@x.com' },
      ]);
      expect(res).toMatchObject({ received: 2, created: 1, updated: 0, failed: 1 });
      expect(res.errors).toEqual([
        {
          index: 0,
          error:
            'email "c@x.com" belongs to another lead of this tenant; the lead migrated as external_id "X" was left unchanged',
        },
      ]);
      const after = await leadRows();
      expect(after.filter((l) => l.email !== 'ok@x.com')).toEqual(before);
      expect(after).toHaveLength(3);
      const mappings = await mappingsOf(tenant.id);
      expect(mappings.find((m) => m.external_id === 'X')?.record_id).toBe(
        before.find((l) => l.email === 'a@x.com')?.id,
      );
      const events = (await outboxEvents(db, tenant.id)).slice(eventsBefore.length);
      expect(events.map((e) => e.type)).toEqual(['lead.created']);
    });

    it('a new source id adopts a lead not migrated from this source, but never one migrated from it as another id', async () => {
      const web = await insertRow(db, 'crm_leads', {
        tenant_id: tenant.id,
        email: 'web@x.com',
        first_name: 'Web',
      });
      await ingest([{ external_id: 'X', email: 'a@x.com' }]);
      const res = await ingest([
        { external_id: 'W', email: 'web@x.com', last_name: 'Form' },
        { external_id: 'Y', email: 'a@x.com', first_name: 'Impostor' },
        { external_id: 'N1', email: 'new@x.com' },
        { external_id: 'N2', email: 'new@x.com' },
      ]);
      expect(res).toMatchObject({ received: 4, created: 1, updated: 1, failed: 2 });
      expect(res.errors).toEqual([
        {
          index: 1,
          error:
            'email "a@x.com" belongs to the lead migrated from hubspot as external_id "X"; nothing was stored',
        },
        {
          index: 3,
          error:
            'email "new@x.com" is also given to external_id "N1" in this request; nothing was stored',
        },
      ]);
      const leads = await tenantRows(db, 'crm_leads', tenant.id);
      expect(leads.map((l) => l.email).sort()).toEqual(['a@x.com', 'new@x.com', 'web@x.com']);
      expect(leads.find((l) => l.email === 'web@x.com')).toMatchObject({
        id: web.id,
        first_name: 'Web',
        last_name: 'Form',
      });
      expect(leads.find((l) => l.email === 'a@x.com')?.first_name).toBeNull();
      const mappings = await mappingsOf(tenant.id);
      expect(mappings.map((m) => m.external_id)).toEqual(['N1', 'W', 'X']);
      expect(mappings.find((m) => m.external_id === 'W')?.record_id).toBe(web.id);
    });

    it('a mapped lead deleted since is created again under its source id', async () => {
      await ingest([{ external_id: 'X', email: 'a@x.com' }]);
      const [gone] = await leadRows();
      await withSystemScope(db.db, (trx) =>
        trx
          .deleteFrom('crm_leads')
          .where('id', '=', gone.id as string)
          .execute(),
      );
      expect(await ingest([{ external_id: 'X', email: 'a@x.com' }])).toMatchObject({
        created: 1,
        updated: 0,
      });
      const [back] = await leadRows();
      expect(back.id).not.toBe(gone.id);
      expect(await mappingsOf(tenant.id)).toEqual([{ external_id: 'X', record_id: back.id }]);
    });
  });

  it('reports invalid records by index and stores the others', async () => {
    const body = leadsBody([
      { external_id: 'ok', email: 'ok@example.com' },
      { external_id: 'no-email', first_name: 'Nobody' },
      { email: 'no-id@example.com' },
      'not an object',
    ]);
    const res = await send(body, signedHeaders(body));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: 4, created: 1, failed: 3 });
    expect(res.body.errors).toEqual([
      { index: 1, error: 'Email is required' },
      { index: 2, error: "external_id is required (the record's id in the source system)" },
      { index: 3, error: 'A record must be a JSON object' },
    ]);
    expect(await tenantRows(db, 'crm_leads', tenant.id)).toHaveLength(1);
  });

  it('contacts and products land in their tables, keyed per source system', async () => {
    const contacts = JSON.stringify({
      tenant: tenant.id,
      source_system: 'salesforce',
      entity: 'contacts',
      records: [{ external_id: '003', email: 'cat@example.com', first_name: 'Cat' }],
    });
    expect((await send(contacts, signedHeaders(contacts))).body).toMatchObject({ created: 1 });
    const [contact] = await tenantRows(db, 'crm_contacts', tenant.id);
    expect(contact).toMatchObject({ email: 'cat@example.com', external_id: 'salesforce:003' });

    const products = JSON.stringify({
      tenant: tenant.slug,
      source_system: 'shopify',
      entity: 'products',
      records: [
        { external_id: 'p-9', sku: 'SKU-9', name: 'Widget', price: '19.90', currency: 'EUR' },
      ],
    });
    expect((await send(products, signedHeaders(products))).body).toMatchObject({ created: 1 });
    const [product] = await tenantRows(db, 'crm_products', tenant.id);
    expect(product).toMatchObject({ sku: 'SKU-9', price: '19.90' });
    const types = (await outboxEvents(db, tenant.id)).map((e) => e.type);
    expect(types).toEqual(['contact.created', 'product.created']);
  });

  it('deals: keyed by the mapping, linked to leads migrated from the same source; a re-run updates', async () => {
    const leads = leadsBody([{ external_id: 'L1', email: 'dana@example.com' }]);
    await send(leads, signedHeaders(leads));
    const deals = (records: unknown[]) =>
      JSON.stringify({ tenant: tenant.slug, source_system: 'hubspot', entity: 'deals', records });
    const first = deals([
      {
        external_id: 'D1',
        title: 'Big deal',
        value: '1200.50',
        stage: 'qualified',
        lead_external_id: 'L1',
      },
      { external_id: 'D2', title: 'Orphan', lead_external_id: 'nope' },
      { external_id: 'D3' },
    ]);
    const res = await send(first, signedHeaders(first));
    expect(res.body).toMatchObject({
      entity: 'deals',
      received: 3,
      created: 1,
      updated: 0,
      failed: 2,
    });
    expect(res.body.errors).toEqual([
      { index: 1, error: 'lead_external_id "nope" was not migrated from hubspot' },
      { index: 2, error: 'title is required' },
    ]);
    const [lead] = await tenantRows(db, 'crm_leads', tenant.id);
    const [deal] = await tenantRows(db, 'crm_deals', tenant.id);
    expect(deal).toMatchObject({
      title: 'Big deal',
      value: '1200.50',
      stage: 'qualified',
      lead_id: lead.id,
    });

    const again = deals([{ external_id: 'D1', title: 'Bigger deal', value: 2000, stage: 'won' }]);
    expect((await send(again, signedHeaders(again))).body).toMatchObject({
      created: 0,
      updated: 1,
    });
    const after = await tenantRows(db, 'crm_deals', tenant.id);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: deal.id,
      title: 'Bigger deal',
      value: '2000.00',
      stage: 'won',
      lead_id: null,
    });
    const types = (await outboxEvents(db, tenant.id)).map((e) => e.type);
    expect(types).toEqual(['lead.created', 'deal.created', 'deal.updated']);
  });

  it('activities: linked to a deal and a lead migrated before; a re-run updates', async () => {
    const send1 = (entity: string, records: unknown[]) => {
      const body = JSON.stringify({
        tenant: tenant.slug,
        source_system: 'hubspot',
        entity,
        records,
      });
      return send(body, signedHeaders(body));
    };
    await send1('leads', [{ external_id: 'L9', email: 'eve@example.com' }]);
    await send1('deals', [{ external_id: 'D9', title: 'Renewal', lead_external_id: 'L9' }]);
    const first = await send1('activities', [
      {
        external_id: 'A1',
        type: 'call',
        subject: 'Intro call',
        occurred_at: '2025-03-01T10:00:00Z',
        deal_external_id: 'D9',
        lead_external_id: 'L9',
      },
      { external_id: 'A2', type: 'fax' },
    ]);
    expect(first.body).toMatchObject({ entity: 'activities', created: 1, updated: 0, failed: 1 });
    expect(first.body.errors[0]).toEqual({
      index: 1,
      error: 'type must be one of: call, email, meeting, note, task',
    });
    const [deal] = await tenantRows(db, 'crm_deals', tenant.id);
    const [activity] = await tenantRows(db, 'crm_activities', tenant.id);
    expect(activity).toMatchObject({ type: 'call', subject: 'Intro call', deal_id: deal.id });
    expect((activity.occurred_at as Date).toISOString()).toBe('2025-03-01T10:00:00.000Z');
    const again = await send1('activities', [
      { external_id: 'A1', type: 'meeting', subject: 'Demo' },
    ]);
    expect(again.body).toMatchObject({ created: 0, updated: 1 });
    const after = await tenantRows(db, 'crm_activities', tenant.id);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: activity.id,
      type: 'meeting',
      subject: 'Demo',
      deal_id: null,
    });
    const types = (await outboxEvents(db, tenant.id)).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('activity.'))).toEqual([
      'activity.created',
      'activity.updated',
    ]);
  });

  describe('rejections: 401 with the reason, nothing written', () => {
    async function expectRejected(
      res: request.Response,
      reason: string,
      before: Record<string, number>,
    ) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: reason, code: 'UNAUTHORIZED' });
      expect(await tenantRowCounts(db, tenant.id)).toEqual(before);
    }

    it('bad_signature: wrong secret, a body altered by one byte, a missing signature or nonce', async () => {
      const body = leadsBody([{ external_id: 'x', email: 'x@example.com' }]);
      const before = await tenantRowCounts(db, tenant.id);
      await expectRejected(
        await send(body, signedHeaders(body, { secret: 'wrong' })),
        'bad_signature',
        before,
      );
      const altered = body.replace('x@example.com', 'y@example.com');
      await expectRejected(await send(altered, signedHeaders(body)), 'bad_signature', before);
      const { 'x-svc-signature': _s, ...noSignature } = signedHeaders(body);
      await expectRejected(await send(body, noSignature), 'bad_signature', before);
      const { 'x-svc-nonce': _n, ...noNonce } = signedHeaders(body);
      await expectRejected(await send(body, noNonce), 'bad_signature', before);
    });

    it('timestamp_out_of_range: more than 5 minutes either way, or not a number', async () => {
      const body = leadsBody([{ external_id: 'x', email: 'x@example.com' }]);
      const before = await tenantRowCounts(db, tenant.id);
      for (const ts of [Date.now() - 5 * 60_000 - 5000, Date.now() + 5 * 60_000 + 5000]) {
        await expectRejected(
          await send(body, signedHeaders(body, { ts })),
          'timestamp_out_of_range',
          before,
        );
      }
      const headers = { ...signedHeaders(body), 'x-svc-timestamp': 'yesterday' };
      await expectRejected(await send(body, headers), 'timestamp_out_of_range', before);
    });

    it('replay: the same signed request twice; the second writes nothing', async () => {
      const body = leadsBody([{ external_id: 'r', email: 'r@example.com' }]);
      const headers = signedHeaders(body);
      expect((await send(body, headers)).status).toBe(200);
      const before = await tenantRowCounts(db, tenant.id);
      await expectRejected(await send(body, headers), 'replay', before);
    });

    it('a forged request does not burn the nonce', async () => {
      const body = leadsBody([{ external_id: 'f', email: 'f@example.com' }]);
      const nonce = randomUUID();
      const forged = signedHeaders(body, { nonce, secret: 'attacker' });
      expect((await send(body, forged)).body.error).toBe('bad_signature');
      expect((await send(body, signedHeaders(body, { nonce }))).status).toBe(200);
    });

    it('20 parallel requests with one nonce: exactly one is accepted', async () => {
      const nonce = randomUUID();
      const body = leadsBody([{ external_id: 'p', email: 'p@example.com' }]);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => send(body, signedHeaders(body, { nonce }))),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.body.error === 'replay')).toHaveLength(19);
      expect(await tenantRows(db, 'crm_leads', tenant.id)).toHaveLength(1);
    });

    it('nonce_store_error: the nonce table cannot be written, the request is refused', async () => {
      const body = leadsBody([{ external_id: 'n', email: 'n@example.com' }]);
      const before = await tenantRowCounts(db, tenant.id);
      await sql`REVOKE INSERT ON migrate_nonces FROM ${sql.id(SYSTEM_ROLE)}`.execute(db.db);
      try {
        await expectRejected(await send(body, signedHeaders(body)), 'nonce_store_error', before);
      } finally {
        await sql`GRANT INSERT ON migrate_nonces TO ${sql.id(SYSTEM_ROLE)}`.execute(db.db);
      }
      expect((await send(body, signedHeaders(body))).status).toBe(200);
    });
  });

  describe('after a valid signature', () => {
    it('a body that is not JSON, or not the documented shape, is a 400 that writes nothing', async () => {
      const before = await tenantRowCounts(db, tenant.id);
      const notJson = '{"tenant":';
      const res1 = await send(notJson, signedHeaders(notJson));
      expect(res1.status).toBe(400);
      expect(res1.body).toMatchObject({ code: 'INVALID_JSON' });
      const wrong = JSON.stringify({
        tenant: tenant.slug,
        source_system: 'hubspot',
        entity: 'tickets',
        records: [{}],
      });
      const res2 = await send(wrong, signedHeaders(wrong));
      expect(res2.status).toBe(400);
      expect(res2.body.message).toContain(
        'entity must be one of: leads, contacts, deals, products, activities',
      );
      const nul = leadsBody([{ external_id: 'z', email: 'z\u0000@example.com' }]);
      expect((await send(nul, signedHeaders(nul))).status).toBe(400);
      expect(await tenantRowCounts(db, tenant.id)).toEqual(before);
    });

    it('an unknown tenant is a 404', async () => {
      const body = leadsBody([{ external_id: 'u', email: 'u@example.com' }], {
        tenant: 'no-such-tenant',
      });
      const res = await send(body, signedHeaders(body));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'No tenant "no-such-tenant"' });
    });

    it('the project signer and the specified recipe agree', async () => {
      const body = leadsBody([{ external_id: 's', email: 's@example.com' }]);
      const headers = signSvcRequest(SECRET, { method: 'POST', path: PATH, body });
      expect(headers['x-svc-signature']).toBe(
        specSignature(
          SECRET,
          'POST',
          PATH,
          headers['x-svc-timestamp'],
          headers['x-svc-nonce'],
          body,
        ),
      );
      const res = await send(body, { ...headers, 'content-type': 'application/json' });
      expect(res.status).toBe(200);
    });
  });
});

describe('without SVC_MIGRATE_SIGNING_SECRET', () => {
  const unsigned = useServiceBehindGateway(service, {});
  it('every ingest is refused with missing_signing_secret', async () => {
    const body = JSON.stringify({
      tenant: 'x',
      source_system: 'y',
      entity: 'leads',
      records: [{}],
    });
    const res = await request(unsigned.url).post(PATH).set(signedHeaders(body)).send(body);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('missing_signing_secret');
  });
});
