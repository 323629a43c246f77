import {
  findContactByExternalId,
  findContactIdByEmail,
  findProductBySku,
  ingestContacts,
  ingestProducts,
  listContacts,
  listProducts,
  upsertContactFillingBlanks,
} from '../src';
import { testDb } from '@crm/shared/testing';
import { recordsDb } from './support/records-db';

/** Database tier: the contact and product repositories against real Postgres, in withTenant. */
const database = testDb();
const records = recordsDb(database);
afterAll(() => database.close());

const PAGE = { page: 1, pageSize: 20, sortBy: 'created_at', sortOrder: 'asc' } as const;
const SOURCE = { source: 'mcp_ingest' };

describe('contacts', () => {
  it('upserts by external id: a re-send updates the one contact, contact.created then contact.updated', async () => {
    const tenantId = await records.tenant();
    const send = (row: unknown) =>
      records.asTenant(tenantId, (trx) => ingestContacts(trx, tenantId, [row], SOURCE));
    const first = await send({
      external_id: 'c-1',
      email: 'Ann@Example.com',
      first_name: 'Ann',
      custom_fields: { tier: 'gold' },
    });
    expect(first).toEqual({
      imported: 1,
      failed: 0,
      errors: [],
      data: [
        { id: expect.any(String), external_id: 'c-1', email: 'ann@example.com', created: true },
      ],
    });
    const again = await send({
      external_id: 'c-1',
      phone: '+15550100',
      custom_fields: { vip: true },
    });
    expect(again.data).toEqual([{ ...first.data[0], created: false }]);

    expect(await records.rows('crm_contacts', tenantId)).toEqual([
      expect.objectContaining({
        id: first.data[0].id,
        external_id: 'c-1',
        email: 'ann@example.com',
        first_name: 'Ann',
        phone: '+15550100',
        custom_fields: { tier: 'gold', vip: true },
      }),
    ]);
    const id = first.data[0].id;
    expect(await records.events(tenantId)).toEqual([
      {
        type: 'contact.created',
        record: { module: 'contacts', id },
        data: { email: 'ann@example.com', source: 'mcp_ingest', phone: null, external_id: 'c-1' },
      },
      {
        type: 'contact.updated',
        record: { module: 'contacts', id },
        data: {
          email: 'ann@example.com',
          source: 'mcp_ingest',
          phone: '+15550100',
          external_id: 'c-1',
        },
      },
    ]);
  });

  it('without a match by external id, matches the storefront’s contact by email (case-insensitive), which gains the id', async () => {
    const tenantId = await records.tenant();
    const fromShop = await records.asTenant(tenantId, (trx) =>
      upsertContactFillingBlanks(
        trx,
        tenantId,
        { email: 'bo@example.com', firstName: 'Bo', lastName: null, phone: null },
        'storefront_a',
      ),
    );
    expect(fromShop.created).toBe(true);
    const result = await records.asTenant(tenantId, (trx) =>
      ingestContacts(
        trx,
        tenantId,
        [{ external_id: 'crm-9', email: 'BO@Example.com', title: 'CTO' }],
        SOURCE,
      ),
    );
    expect(result.data).toEqual([
      { id: fromShop.id, external_id: 'crm-9', email: 'bo@example.com', created: false },
    ]);
    await records.asTenant(tenantId, async (trx) => {
      expect(await findContactByExternalId(trx, tenantId, 'crm-9')).toMatchObject({
        id: fromShop.id,
        first_name: 'Bo',
        title: 'CTO',
      });
      expect(await findContactIdByEmail(trx, tenantId, 'bo@example.com')).toBe(fromShop.id);
    });
    expect((await records.events(tenantId)).map((e) => [e.type, e.data])).toEqual([
      ['contact.created', { email: 'bo@example.com', source: 'storefront_a' }],
      [
        'contact.updated',
        { email: 'bo@example.com', source: 'mcp_ingest', phone: null, external_id: 'crm-9' },
      ],
    ]);
  });

  it('refuses an email that belongs to another contact, naming what to send; stores nothing for it', async () => {
    const tenantId = await records.tenant();
    await records.asTenant(tenantId, (trx) =>
      ingestContacts(
        trx,
        tenantId,
        [
          { external_id: 'a', email: 'a@example.com' },
          { external_id: 'b', email: 'b@example.com' },
        ],
        SOURCE,
      ),
    );
    const result = await records.asTenant(tenantId, (trx) =>
      ingestContacts(
        trx,
        tenantId,
        [
          { external_id: 'b', email: 'a@example.com' },
          { external_id: 'c', email: 'A@example.com' },
          { first_name: 'Nobody' },
        ],
        SOURCE,
      ),
    );
    expect(result).toEqual({
      imported: 0,
      failed: 3,
      errors: [
        {
          index: 0,
          error:
            "email a@example.com is already the email of another contact: send that contact's external_id, or another email",
        },
        {
          index: 1,
          error:
            'email a@example.com belongs to the contact with external_id a: send that external_id, or another email',
        },
        {
          index: 2,
          error: 'email or phone is required (a contact is matched by external_id, else by email)',
        },
      ],
      data: [],
    });
    expect(await records.rows('crm_contacts', tenantId)).toHaveLength(2);
  });

  it('another tenant sees none of them', async () => {
    const tenantId = await records.tenant();
    const otherId = await records.tenant();
    await records.asTenant(tenantId, (trx) =>
      ingestContacts(trx, tenantId, [{ external_id: 'x', email: 'x@example.com' }], SOURCE),
    );
    await records.asTenant(otherId, async (trx) => {
      expect(await findContactByExternalId(trx, tenantId, 'x')).toBeUndefined();
      expect(await listContacts(trx, tenantId, PAGE, {}, { secret: 's' })).toMatchObject({
        items: [],
        total: 0,
      });
    });
    // The same external id in another tenant is another contact.
    const other = await records.asTenant(otherId, (trx) =>
      ingestContacts(trx, otherId, [{ external_id: 'x', email: 'x@example.com' }], SOURCE),
    );
    expect(other.data[0].created).toBe(true);
  });
});

describe('products', () => {
  it('upserts by sku, keeps the price exactly, and emits product.created then product.updated', async () => {
    const tenantId = await records.tenant();
    const send = (rows: unknown[]) =>
      records.asTenant(tenantId, (trx) => ingestProducts(trx, tenantId, rows));
    const first = await send([
      { sku: 'SKU-1', name: 'Blue mug', price: '19.90', currency: 'usd' },
      { sku: 'SKU-2', price: -3 },
    ]);
    expect(first).toEqual({
      imported: 1,
      failed: 1,
      errors: [
        {
          index: 1,
          error:
            'price must be a decimal >= 0 such as 19.99 (at most 15 digits before the point and 6 after)',
        },
      ],
      data: [{ id: expect.any(String), sku: 'SKU-1', created: true }],
    });
    const again = await send([{ sku: 'SKU-1', active: false, price: '12345678901234.123456' }]);
    expect(again.data).toEqual([{ ...first.data[0], created: false }]);

    const rows = await records.rows('crm_products', tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        sku: 'SKU-1',
        name: 'Blue mug',
        price: '12345678901234.123456',
        currency: 'USD',
        active: false,
      }),
    ]);
    const id = first.data[0].id;
    expect(await records.events(tenantId)).toEqual([
      {
        type: 'product.created',
        record: { module: 'products', id },
        data: { sku: 'SKU-1', name: 'Blue mug', price: '19.90', currency: 'USD', active: true },
      },
      {
        type: 'product.updated',
        record: { module: 'products', id },
        data: {
          sku: 'SKU-1',
          name: 'Blue mug',
          price: '12345678901234.123456',
          currency: 'USD',
          active: false,
        },
      },
    ]);
  });

  it('another tenant sees none of them, and has its own product with the same sku', async () => {
    const tenantId = await records.tenant();
    const otherId = await records.tenant();
    await records.asTenant(tenantId, (trx) => ingestProducts(trx, tenantId, [{ sku: 'S' }]));
    await records.asTenant(otherId, async (trx) => {
      expect(await findProductBySku(trx, tenantId, 'S')).toBeUndefined();
      expect(
        await listProducts(trx, tenantId, PAGE, {}, { secret: 'products test cursor secret' }),
      ).toMatchObject({ items: [], total: 0 });
      expect((await ingestProducts(trx, otherId, [{ sku: 'S' }])).data[0].created).toBe(true);
    });
  });
});
