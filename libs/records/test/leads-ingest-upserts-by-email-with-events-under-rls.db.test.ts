import { findLead, findLeadByEmail, ingestLeads, listLeads } from '../src';
import { testDb } from '@crm/shared/testing';
import { recordsDb } from './support/records-db';

/**
 * Database tier: ingestLeads (the import route's and MCP's one implementation) against real
 * Postgres inside withTenant.
 */
const database = testDb();
const records = recordsDb(database);
afterAll(() => database.close());

const PAGE = { page: 1, pageSize: 20, sortBy: 'email', sortOrder: 'asc' } as const;
const CURSORS = { secret: 'test cursor secret' };

describe('ingestLeads', () => {
  it('stores valid rows by email, reports the others, and writes lead.created events', async () => {
    const tenantId = await records.tenant();
    const result = await records.asTenant(tenantId, (trx) =>
      ingestLeads(trx, tenantId, [
        { email: 'Ada@Example.com', company: 'Engines', lead_source: 'Web Form' },
        { first_name: 'No email' },
        { email: 'grace@example.com', status: 'sleeping' },
      ]),
    );
    expect(result).toEqual({
      imported: 1,
      failed: 2,
      errors: [
        { index: 1, error: 'Email is required' },
        {
          index: 2,
          error:
            'Invalid status "sleeping"; one of: new, contacted, qualified, unqualified, converted, lost',
        },
      ],
      data: [
        { id: expect.any(String), email: 'ada@example.com', status: 'new', source: 'web_form' },
      ],
    });
    const [lead] = await records.rows('crm_leads', tenantId);
    expect(lead).toMatchObject({
      id: result.data[0].id,
      email: 'ada@example.com',
      custom_fields: { company: 'Engines' },
    });
    expect(await records.events(tenantId)).toEqual([
      {
        type: 'lead.created',
        record: { module: 'leads', id: lead.id },
        data: { email: 'ada@example.com', status: 'new', source: 'web_form' },
      },
    ]);
  });

  it('a re-send updates the same lead (no duplicate): lead.updated, merged custom_fields', async () => {
    const tenantId = await records.tenant();
    const send = (row: unknown) =>
      records.asTenant(tenantId, (trx) => ingestLeads(trx, tenantId, [row]));
    const first = await send({
      email: 'ada@example.com',
      first_name: 'Ada',
      custom_fields: { a: 1 },
    });
    const again = await send({
      email: 'ADA@example.com',
      status: 'contacted',
      custom_fields: { b: 2 },
    });
    expect(again.data[0].id).toBe(first.data[0].id);
    const rows = await records.rows('crm_leads', tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        email: 'ada@example.com',
        first_name: 'Ada',
        status: 'contacted',
        custom_fields: { a: 1, b: 2 },
      }),
    ]);
    expect((await records.events(tenantId)).map((e) => e.type)).toEqual([
      'lead.created',
      'lead.updated',
    ]);
  });

  it('find and list read the tenant’s leads; another tenant sees nothing of them', async () => {
    const tenantId = await records.tenant();
    const otherId = await records.tenant();
    const { data } = await records.asTenant(tenantId, (trx) =>
      ingestLeads(trx, tenantId, [{ email: 'b@example.com' }, { email: 'a@example.com' }]),
    );
    await records.asTenant(tenantId, async (trx) => {
      expect(await findLead(trx, tenantId, data[0].id)).toMatchObject({ email: 'b@example.com' });
      expect(await findLeadByEmail(trx, tenantId, 'a@example.com')).toMatchObject({
        id: data[1].id,
      });
      const page = await listLeads(trx, tenantId, PAGE, {}, CURSORS);
      expect(page).toMatchObject({ total: 2, totalPages: 1 });
      expect(page.items.map((l) => l.email)).toEqual(['a@example.com', 'b@example.com']);
    });
    await records.asTenant(otherId, async (trx) => {
      // Even asked for the first tenant's rows by its id: row-level security hides them.
      expect(await findLead(trx, tenantId, data[0].id)).toBeUndefined();
      expect(await listLeads(trx, tenantId, PAGE, {}, CURSORS)).toMatchObject({
        items: [],
        total: 0,
      });
      expect(await listLeads(trx, otherId, PAGE, {}, CURSORS)).toMatchObject({
        items: [],
        total: 0,
      });
    });
  });
});
