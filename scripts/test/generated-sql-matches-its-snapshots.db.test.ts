import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSystemScope, withTenant, type Database, type Db } from '@crm/shared/db';
import type { CursorPageQuery } from '@crm/shared/pagination';
import { createTenant, insertRow, testDb } from '@crm/shared/testing';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { claimRoundSql } from '../../libs/shared/src/events/relay';
import {
  indexLeadSearchTexts,
  ingestLeads,
  listLeads,
  readTimeline,
  type LeadFilters,
  type LeadSortKey,
} from '@crm/records';

import {
  insertNetworkEvents,
  type AccountActivity,
} from '../../services/webhook-ingest/src/providers/network/network.repository';
import { formatSql } from './support/format-sql';

/*
 * The large statements the code generates, as committed .sql files a review can read: a change
 * to the lead import's upsert, the relay's claim, the lead list's pages and searches, the
 * timeline or the network receiver's insert shows in the diff as the SQL Postgres will get, not
 * only as the TypeScript that builds it. Each statement is taken as it is sent (a Kysely that logs what it runs, on the
 * test database) or compiled (the claim), laid out by scripts/test/support/format-sql.ts, and
 * compared with its file in scripts/test/sql-snapshots/ (one file a statement; parameters are
 * `$1`, `$2`, ..., their values are not part of it).
 *
 * A failure means a statement changed. If the change is meant, rewrite the files and commit
 * them with the change:
 *
 *   UPDATE_SQL_SNAPSHOTS=1 npx jest scripts/test/generated-sql-matches-its-snapshots.db.test.ts
 *
 * A snapshot file no statement writes any more fails the test too (delete it).
 */

const SNAPSHOTS = join(__dirname, 'sql-snapshots');
const UPDATE = process.env.UPDATE_SQL_SNAPSHOTS === '1';
const CURSORS = { secret: 'sql snapshot cursor secret' };

let database: Db;
let db: Kysely<Database>;
let tenantId: string;
const sent: CompiledQuery[] = [];
/** Awaited after each statement this Kysely runs, before its caller sees the result. */
let afterStatement: (query: CompiledQuery) => Promise<void> = async () => undefined;
const written = new Set<string>();

beforeAll(async () => {
  database = testDb();
  db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: async (event) => {
      if (event.level !== 'query') return;
      sent.push(event.query);
      await afterStatement(event.query);
    },
  });
  tenantId = (await createTenant(database)).id;
});
afterAll(async () => {
  await db?.destroy();
  await database?.close();
});

/** Compares the statement with its snapshot (or writes it under UPDATE_SQL_SNAPSHOTS=1). */
function expectSnapshot(name: string, title: string, statement: string | undefined) {
  if (statement === undefined) throw new Error(`${name}: the statement was not sent`);
  const file = `${name}.sql`;
  written.add(file);
  const formatted = formatSql(statement);
  // The layout changes white space only: the file reads as the statement sent.
  expect(formatted.replace(/\s+/g, '')).toBe(statement.replace(/\s+/g, ''));
  const text = `-- ${title}\n${formatted}`;
  const path = join(SNAPSHOTS, file);
  if (UPDATE) {
    mkdirSync(SNAPSHOTS, { recursive: true });
    writeFileSync(path, text);
    return;
  }
  if (!existsSync(path)) {
    throw new Error(`${file} has no snapshot: run with UPDATE_SQL_SNAPSHOTS=1 and commit it`);
  }
  expect(text).toBe(readFileSync(path, 'utf8'));
}

/** The statements `run` sends, in order. */
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  sent.length = 0;
  await run();
  return sent.map((query) => query.sql);
}

const lead = (email: string, first_name = 'Ada') => ({ email, first_name, last_name: 'Lovelace' });

describe('the lead import upsert', () => {
  it('reads the stored leads, inserts the new ones and updates the stored ones', async () => {
    await withTenant(db, tenantId, (trx) => ingestLeads(trx, tenantId, [lead('stored@snap.test')]));
    const statements = await statementsOf(() =>
      withTenant(db, tenantId, (trx) =>
        ingestLeads(trx, tenantId, [lead('stored@snap.test', 'Grace'), lead('new@snap.test')]),
      ),
    );
    const leadStatement = (pattern: RegExp) => statements.find((s) => pattern.test(s));
    expectSnapshot(
      'lead-import-reads-stored-leads',
      'The lead import: the stored leads of a chunk, by email (libs/records leads.repository.ts existingLeads)',
      leadStatement(/^select .* from "crm_leads"/is),
    );
    expectSnapshot(
      'lead-import-inserts-new-leads',
      "The lead import: one INSERT of a chunk's new leads (leads.repository.ts insertOrUpdate)",
      leadStatement(/INSERT INTO crm_leads \(id,/),
    );
    expectSnapshot(
      'lead-import-updates-stored-leads',
      "The lead import: one UPDATE of a chunk's stored leads (leads.repository.ts insertOrUpdate)",
      leadStatement(/UPDATE crm_leads AS l/),
    );
  });

  it('falls back to INSERT ... ON CONFLICT when another transaction inserts the same email', async () => {
    // Right after the import has read the stored leads, another connection stores one of its
    // new emails: the import's plain INSERT then meets the unique key and takes the other way.
    let raced = false;
    afterStatement = async (query) => {
      if (raced || !/from "crm_leads"/.test(query.sql)) return;
      raced = true;
      await database.db
        .insertInto('crm_leads')
        .values({ tenant_id: tenantId, email: 'raced@snap.test' })
        .execute();
    };
    let statements: string[];
    try {
      statements = await statementsOf(() =>
        withTenant(db, tenantId, (trx) => ingestLeads(trx, tenantId, [lead('raced@snap.test')])),
      );
    } finally {
      afterStatement = async () => undefined;
    }
    expectSnapshot(
      'lead-import-upserts-on-conflict',
      'The lead import when raced: INSERT ... ON CONFLICT of a chunk (leads.repository.ts upsertWithConflicts)',
      statements.find((s) => /ON CONFLICT \(tenant_id, email\)/.test(s)),
    );
  });
});

describe("the outbox relay's claim", () => {
  it('locks the pending rows of a round in seq order', () => {
    expectSnapshot(
      'outbox-relay-claims-a-round',
      "The outbox relay's claim of one round (libs/shared/src/events/relay.ts claimRoundSql)",
      claimRoundSql(1000).compile(db).sql,
    );
  });
});

describe('the lead list', () => {
  const page = (p: Partial<CursorPageQuery<LeadSortKey>> = {}): CursorPageQuery<LeadSortKey> => ({
    page: 1,
    pageSize: 50,
    sortBy: 'created_at',
    sortOrder: 'desc',
    ...p,
  });
  const list = (query: CursorPageQuery<LeadSortKey>, filters: LeadFilters = {}) =>
    withTenant(db, tenantId, (trx) => listLeads(trx, tenantId, query, filters, CURSORS));
  /** The statement that answers the page: the last one the list sends that reads crm_leads. */
  const pageStatement = (statements: string[]) =>
    statements.findLast((s) => /crm_lead/.test(s) && !/^select set_config/i.test(s));

  beforeAll(async () => {
    // More leads than a search walks (WALK_ROWS) before it falls back to the search index.
    await sql`
      INSERT INTO crm_leads (tenant_id, email, first_name, last_name, created_at)
      SELECT ${tenantId}::uuid, 'walk' || n || '@snap.test', 'first' || n, 'last' || n,
             now() - n * interval '1 second'
        FROM generate_series(1, 3000) AS n`.execute(database.db);
    const { rows } = await sql<{ id: string }>`
      INSERT INTO crm_leads (tenant_id, email, last_name, created_at)
      VALUES (${tenantId}::uuid, 'needle@snap.test', 'Needle', now() - interval '1 day')
      RETURNING id`.execute(database.db);
    // Announced by no event: the search index learns of the lead as the indexer would.
    await withSystemScope(database.db, (trx) => indexLeadSearchTexts(trx, [rows[0].id]));
  });

  it('the first page and a cursor page', async () => {
    let first: Awaited<ReturnType<typeof list>> | undefined;
    const firstStatements = await statementsOf(async () => {
      first = await list(page());
    });
    expectSnapshot(
      'lead-list-first-page',
      'The lead list, first page by created_at, with its capped count (libs/shared/src/pagination/keyset.ts)',
      pageStatement(firstStatements),
    );
    const cursorStatements = await statementsOf(() =>
      list(page({ cursor: first?.nextCursor as string })),
    );
    expectSnapshot(
      'lead-list-cursor-page',
      'The lead list, the page after a cursor (libs/shared/src/pagination/keyset.ts)',
      pageStatement(cursorStatements),
    );
  });

  it('a search that walks the sort index, and one that falls back to the search index', async () => {
    const walk = await statementsOf(async () => {
      const found = await list(page(), { q: 'first1' });
      expect(found.items.length).toBe(50);
    });
    expectSnapshot(
      'lead-list-search-walk',
      "The lead list's search, walking the sort's index (libs/shared/src/pagination/walk-for-search.ts)",
      pageStatement(walk),
    );
    const fallback = await statementsOf(async () => {
      const found = await list(page(), { q: 'needle' });
      expect(found.items.map((l) => l.email)).toEqual(['needle@snap.test']);
    });
    expectSnapshot(
      'lead-list-search-fallback',
      "The lead list's search through the lead search index, when the walk finds too few (libs/shared/src/pagination/read-search-matches.ts)",
      pageStatement(fallback),
    );
  });
});

describe("a lead's timeline", () => {
  it('reads every source in one statement', async () => {
    const [stored] = (
      await withTenant(db, tenantId, (trx) =>
        ingestLeads(trx, tenantId, [lead('timeline@snap.test')]),
      )
    ).data;
    const statements = await statementsOf(() =>
      withTenant(db, tenantId, (trx) =>
        readTimeline(trx, tenantId, 'lead', stored.id, 50, undefined),
      ),
    );
    expectSnapshot(
      'lead-timeline-first-page',
      "A lead's timeline, first page (libs/records/src/timeline/timeline.repository.ts readTimeline)",
      statements.find((s) => s.includes('UNION ALL')),
    );
  });
});

describe("the network receiver's insert", () => {
  it("stores a tenant's activities in one statement, skipping redelivered ones", async () => {
    const account = await insertRow(database, 'network_accounts', {
      tenant_id: tenantId,
      external_account_id: `snap-${tenantId}`,
    });
    const activity = (externalEventId: string): AccountActivity => ({
      accountId: account.id,
      externalAccountId: `snap-${tenantId}`,
      externalEventId,
      kind: 'network_connection_sent',
      eventType: 'INVITATION_SENT',
      actor: { name: 'Ann' },
      occurredAt: new Date('2026-11-24T10:00:00Z'),
      payload: { id: externalEventId, type: 'INVITATION_SENT' },
    });
    const statements = await statementsOf(async () => {
      const stored = await withTenant(db, tenantId, (trx) =>
        insertNetworkEvents(trx, tenantId, [activity('snap-1'), activity('snap-2')]),
      );
      expect(stored.map((row) => row.external_event_id)).toEqual(['snap-1', 'snap-2']);
    });
    expectSnapshot(
      'network-receiver-inserts-events',
      "The network receiver: one INSERT of a tenant's activities from a JSON recordset (services/webhook-ingest/src/providers/network/network.repository.ts insertNetworkEvents)",
      statements.find((s) => /INSERT INTO network_events/.test(s)),
    );
  });
});

describe('the snapshot files', () => {
  it('are each written by a statement above (delete the others)', () => {
    if (UPDATE) return;
    const files = existsSync(SNAPSHOTS) ? readdirSync(SNAPSHOTS) : [];
    expect(files.filter((file) => !written.has(file))).toEqual([]);
  });
});
