import { withSystemScope, withTenant, type Database, type Db } from '@crm/shared/db';
import type { CursorPageQuery } from '@crm/shared/pagination';
import { createTenant, isolatedTestDb, statementLog } from '@crm/shared/testing';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import {
  deleteContact,
  insertContact,
  listContacts,
  updateContact,
  type ContactSortKey,
} from '../src';

/*
 * The contacts' q at 100,000 contacts in one tenant, names drawn as people's are (20 first names,
 * 20 last names: each pair in one contact of 400, each name in one of 20). Each statement the
 * list sends is captured as it runs and EXPLAINed with the same parameters and tenant scope:
 * the plans, not timings, are pinned (speed is the benchmarks' to measure), and every answer is
 * compared with the contacts a plain LIKE over their columns finds.
 */
const CONTACTS = 100_000;
const CURSORS = { secret: 'explain test cursor secret' };
const FIRST =
  'Ada Grace Alan Linus Margaret Edsger Barbara Donald Frances Ken Radia John Sophie Tim Hedy Dennis Katherine Guido Lucia Mateo'.split(
    ' ',
  );
const LAST =
  'Lovelace Hopper Turing Torvalds Hamilton Dijkstra Liskov Knuth Allen Thompson Perlman McCarthy Wilson Berners Lamarr Ritchie Johnson Rossi Garcia Okafor'.split(
    ' ',
  );

let database: Db;
let db: Kysely<Database>;
let sent: CompiledQuery[] = [];
let tenantId: string;

/** `count` contacts: contact n has first name n mod 20, last name n / 20 mod 20, is n seconds old. */
async function seedContacts(tenant: string, count: number) {
  await sql`
    INSERT INTO crm_contacts (tenant_id, email, first_name, last_name, phone, company, created_at)
    SELECT ${tenant}::uuid,
           lower(f.name || '.' || l.name || '.' || n || '@example' || (n % 100) || '.com'),
           f.name, l.name, '+1555' || lpad(n::text, 7, '0'), 'Company ' || (n % 1000),
           now() - n * interval '1 second'
      FROM generate_series(1, ${count}::int) AS n,
           LATERAL (SELECT (${FIRST}::text[])[1 + n % 20] AS name) f,
           LATERAL (SELECT (${LAST}::text[])[1 + (n / 20) % 20] AS name) l`.execute(database.db);
}

beforeAll(async () => {
  database = await isolatedTestDb();
  ({ db, sent } = statementLog(database));
  tenantId = (await createTenant(database)).id;
  await seedContacts(tenantId, CONTACTS);
  // Another tenant's contacts in the same indexes, never found here.
  await seedContacts((await createTenant(database)).id, 1000);
  await sql`VACUUM ANALYZE crm_contacts`.execute(database.db);
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await database?.close();
});

const page = (
  p: Partial<CursorPageQuery<ContactSortKey>> = {},
): CursorPageQuery<ContactSortKey> => ({
  page: 1,
  pageSize: 20,
  sortBy: 'created_at',
  sortOrder: 'desc',
  ...p,
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The list's answer and the statements it sent for it (the walk, then the index's read). */
async function search(q: string, query = page()) {
  sent.length = 0;
  const result = await withTenant(db, tenantId, (trx) =>
    listContacts(trx, tenantId, query, { q }, CURSORS),
  );
  const statements = sent.filter((s) => /^\s*(select|with)/i.test(s.sql));
  return { result, statements };
}

async function planOf(statement: CompiledQuery): Promise<PlanNode[]> {
  return withTenant(db, tenantId, async (trx) => {
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
    );
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
  });
}

/**
 * The tenant's contacts whose names, email, phone or company hold `q` (case-insensitive),
 * newest first, by a plain LIKE over the columns themselves: what the list must answer.
 */
async function expected(q: string): Promise<string[]> {
  const { rows } = await withSystemScope(database.db, (trx) =>
    sql<{ id: string }>`
      SELECT id FROM crm_contacts
       WHERE tenant_id = ${tenantId}
         AND strpos(lower(concat_ws(' ', coalesce(first_name, ''), coalesce(last_name, ''),
                                    coalesce(email, ''), coalesce(phone, ''), coalesce(company, ''))),
                    lower(${q})) > 0
       ORDER BY created_at DESC, id DESC`.execute(trx),
  );
  return rows.map((r) => r.id);
}

describe('the contacts q at 100,000 contacts in one tenant', () => {
  it('two names: the walk reads the sort index, then the trigram index is asked for the middle of each name, and the whole term re-checks the stored text', async () => {
    const { result, statements } = await search('Margaret.Hopper');
    const all = await expected('margaret.hopper');
    // 250 of 100,000: about 6 among the 2,500 the walk reads, too few for a page.
    expect(all).toHaveLength(250);
    expect(result).toMatchObject({ total: 250, totalExact: true });
    expect(result.items.map((c) => c.id)).toEqual(all.slice(0, 20));
    expect(statements).toHaveLength(2);

    const walk = await planOf(statements[0]);
    expect(walk.filter((n) => n['Index Name']).map((n) => n['Index Name'])).toEqual([
      'crm_contacts_by_created',
      'crm_contacts_pkey',
    ]);
    const read = await planOf(statements[1]);
    const scan = read.find((n) => n['Node Type'] === 'Bitmap Index Scan');
    expect(scan?.['Index Name']).toBe('crm_contacts_search');
    // One trigram of each name ("rga" of margaret, "opp" of hopper), not the term's thirteen.
    expect(scan?.['Index Cond']).toBe(`(search_text ~~ '%rga%opp%'::text)`);
    const heap = read.find((n) => n['Node Type'] === 'Bitmap Heap Scan');
    expect(heap?.Filter).toContain(`((search_text || ''::text) ~~ '%margaret.hopper%'::text)`);
    expect(read.some((n) => n['Node Type'] === 'Seq Scan')).toBe(false);
    // The text is read from the row, never computed from its columns, in both statements.
    expect(JSON.stringify([walk, read])).not.toMatch(/lower\(/);

    // The next page by cursor: every match once, in order.
    const next = await search('Margaret.Hopper', page({ cursor: result.nextCursor as string }));
    expect(next.result.items.map((c) => c.id)).toEqual(all.slice(20, 40));
    expect(next.result).toMatchObject({ page: 2, total: 250, totalExact: true });
  });

  it.each([
    ['two names across their separator', 'garet hop'],
    ['a full name in the other order', 'hopper margaret'],
    ['an email, by the part before its @', 'MARGARET.HOPPER.24@Example24.com'],
    ['the same part with another domain', 'margaret.hopper.24@example25.com'],
    ['a phone number', '+15550000444'],
    ['one name', 'lovelace'],
    ['a name and a number', 'hopper.2'],
    ['a company and a name', 'company 44'],
    ['names with a short word between', 'ada b lovelace'],
    ['a wildcard character, as itself', 'hopper_'],
  ])('%s (%s) finds what a plain LIKE over the columns finds', async (_, q) => {
    const { result } = await search(q);
    const all = await expected(q);
    expect(result.items.map((c) => c.id)).toEqual(all.slice(0, 20));
    if (result.totalExact) expect(result.total).toBe(all.length);
    else expect(all.length).toBeGreaterThanOrEqual(result.total);
  });

  it('a contact created, changed or deleted is found, or no longer found, at once', async () => {
    const names = { first_name: 'Quentin', last_name: 'Bramblewood' };
    const created = await withTenant(db, tenantId, (trx) =>
      insertContact(trx, tenantId, { ...names, email: 'q.bramblewood@example.org' }),
    );
    const id = created?.id as string;
    const ids = async (q: string) => (await search(q)).result.items.map((c) => c.id);
    expect(await ids('quentin bramblewood')).toEqual([id]);
    await withTenant(db, tenantId, (trx) =>
      updateContact(trx, tenantId, id, { last_name: 'Thornfield' }),
    );
    expect(await ids('quentin bramblewood')).toEqual([]);
    expect(await ids('quentin thornfield')).toEqual([id]);
    await withTenant(db, tenantId, (trx) => deleteContact(trx, tenantId, id));
    expect(await ids('quentin thornfield')).toEqual([]);
  });
});
