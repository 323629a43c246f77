import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import type { Db } from '../db/create-db';
import type { Database } from '../db/schema';

/*
 * What the retention EXPLAIN tests share: the statements a sweep (a batch, or health's min())
 * sends, captured by a logging Kysely on the test's pool, and the scans of each one's plan.
 * Planned as the database owner with sequential and bitmap scans off, as the list tests do:
 * the question is which index gives the oldest rows, not what the planner prefers on a table
 * of a few rows. EXPLAIN without ANALYZE: nothing is deleted.
 */

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

export interface StatementPlan {
  sql: string;
  /** `<node type> <index>` of every scan, e.g. `Index Scan event_outbox_published`. */
  scans: string[];
  /** The indexes the plan reads. */
  indexes: string[];
  /** Whether a Sort node orders rows (the index should give the order). */
  sorts: boolean;
}

/** The plan of every SELECT, UPDATE or DELETE that `run` sends through the db it is given. */
export async function sweepPlans(
  database: Db,
  run: (db: Kysely<Database>) => Promise<unknown>,
): Promise<StatementPlan[]> {
  const captured: CompiledQuery[] = [];
  const logging = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query' && /^\s*(select|update|delete)/i.test(event.query.sql)) {
        captured.push(event.query);
      }
    },
  });
  await run(logging);
  const plans: StatementPlan[] = [];
  for (const statement of captured) {
    const nodes = await database.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
      );
      return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    });
    plans.push({
      sql: statement.sql,
      scans: nodes
        .filter((n) => n['Relation Name'])
        .map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`.trim()),
      indexes: nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : [])),
      sorts: nodes.some((n) => /Sort/.test(n['Node Type'])),
    });
  }
  return plans;
}
