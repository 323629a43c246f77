import { FILL_LEAD_SEARCH_TEXTS } from '@crm/records';
import { eventually, tenantSession, usePlatformBehindGateway } from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { service as crmApi } from '../src/main';

/*
 * The lead search index (crm_lead_search_texts) is filled after commit by crm-api's indexer,
 * from the lead events the outbox relay publishes. In a tenant with more leads than a search
 * walks (2,500), a search sorted by email for a lead whose email sorts last is served by the
 * index alone: the lead is findable once the indexer has caught up (polled, bounded), and the
 * live row decides at once what no longer matches.
 */
const stack = usePlatformBehindGateway([{ service: crmApi }]);
type Session = Awaited<ReturnType<typeof tenantSession>>;
let owner: Session;
let other: Session;

const SEEDED = 3000;

beforeAll(async () => {
  owner = await tenantSession(stack, stack.database);
  other = await tenantSession(stack, stack.database);
  const { db } = stack.database;
  await sql`INSERT INTO crm_leads (tenant_id, email, first_name, last_name)
    SELECT ${owner.tenantId}::uuid, 'seed' || lpad(n::text, 5, '0') || '@example.com',
           'first' || n, 'last' || n
      FROM generate_series(1, ${SEEDED}::int) AS n`.execute(db);
  await sql.raw(FILL_LEAD_SEARCH_TEXTS).execute(db);
  await sql`ANALYZE crm_leads, crm_lead_search_texts`.execute(db);
}, 60_000);

/** The ids a search by email (ascending) finds: past the walk, only the index nominates. */
async function found(who: Session, q: string): Promise<string[]> {
  const res = await request(stack.url)
    .get(`/api/crm/leads?sortBy=email&sortOrder=asc&q=${encodeURIComponent(q)}`)
    .set('Cookie', who.cookie);
  expect(res.status).toBe(200);
  return (res.body.items as Array<{ id: string }>).map((lead) => lead.id);
}

const searchRows = async (leadId: string) =>
  (
    await sql<{ search_text: string }>`
      SELECT search_text FROM crm_lead_search_texts WHERE lead_id = ${leadId}::uuid`.execute(
      stack.database.db,
    )
  ).rows;

const create = async (who: Session, lead: Record<string, string>) => {
  const res = await request(stack.url).post('/api/crm/leads').set('Cookie', who.cookie).send(lead);
  expect(res.status).toBe(201);
  return res.body.data.lead.id as string;
};

describe('the lead search index follows the lead writes after commit', () => {
  let id: string;

  it('a created lead becomes findable by a rare term, in its own tenant only', async () => {
    id = await create(owner, { email: 'zz-fresh@example.com', first_name: 'Quillfeather' });
    const theirs = await create(other, {
      email: 'zz-theirs@example.com',
      first_name: 'Quillfeather',
    });
    await eventually(async () => expect(await found(owner, 'quillfeather')).toEqual([id]), 20_000);
    expect(await found(other, 'QUILLFEATHER')).toEqual([theirs]);
    expect(await searchRows(id)).toEqual([{ search_text: 'quillfeather  zz-fresh@example.com  ' }]);
  });

  it('an updated lead: the old term stops matching at once, the new one once indexed', async () => {
    const res = await request(stack.url)
      .patch(`/api/crm/leads/${id}`)
      .set('Cookie', owner.cookie)
      .send({ first_name: 'Brambleworth', custom_fields: { company: 'Tinderbox Ltd' } });
    expect(res.status).toBe(200);
    // Whether or not the indexer has run yet, the live lead no longer matches.
    expect(await found(owner, 'quillfeather')).toEqual([]);
    await eventually(async () => expect(await found(owner, 'brambleworth')).toEqual([id]), 20_000);
    expect(await found(owner, 'tinderbox ltd')).toEqual([id]);
    expect(await searchRows(id)).toEqual([
      { search_text: 'brambleworth  zz-fresh@example.com  tinderbox ltd' },
    ]);
  });

  it('a deleted lead is found no more at once, and its search row goes', async () => {
    const res = await request(stack.url).delete(`/api/crm/leads/${id}`).set('Cookie', owner.cookie);
    expect(res.status).toBe(200);
    expect(await found(owner, 'brambleworth')).toEqual([]);
    await eventually(async () => expect(await searchRows(id)).toEqual([]), 20_000);
  });
});
