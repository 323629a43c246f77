import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import type { Db } from '../db/create-db';
import type { Database } from '../db/schema';
import { withTenant } from '../db/tenant-scope';

/*
 * What the EXPLAIN tests of the lists share: the SELECTs a list function sends (captured by a
 * logging Kysely on the test's pool, inside the tenant's transaction), and what the plan of one
 * reads. Sequential and bitmap scans are switched off for the EXPLAIN: the question is whether
 * an index gives the order, not what the planner prefers on a table of a few thousand rows.
 */

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * A Kysely on the test's pool that keeps every statement it runs, in order, in `sent` (which a
 * test may empty between reads): what a list sent, to EXPLAIN with the same parameters.
 */
export function statementLog(database: Db): { db: Kysely<Database>; sent: CompiledQuery[] } {
  const sent: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query') sent.push(event.query);
    },
  });
  return { db, sent };
}

/** The SELECT statements `run` sends in a transaction of `tenantId`, in order. */
export async function selectsSent(
  database: Db,
  tenantId: string,
  run: (trx: never) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const captured: CompiledQuery[] = [];
  const logging = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query' && /^select/i.test(event.query.sql)) captured.push(event.query);
    },
  });
  await withTenant(logging, tenantId, (trx) => run(trx as never));
  return captured;
}

/**
 * The indexes the plan of `statement` reads (each once: a capped count in a page's statement
 * reads the page's index again), whether it sorts, whether it scans a table.
 */
export async function planReads(
  database: Db,
  tenantId: string,
  statement: CompiledQuery,
): Promise<{ indexes: string[]; sorts: boolean; seqScan: boolean }> {
  const nodes = await withTenant(database.db, tenantId, async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
    );
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
  });
  return {
    indexes: [...new Set(nodes.filter((n) => n['Index Name']).map((n) => n['Index Name']!))],
    sorts: nodes.some((n) => /Sort/.test(n['Node Type'])),
    seqScan: nodes.some((n) => n['Node Type'] === 'Seq Scan'),
  };
}
