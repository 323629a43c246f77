import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { SecretBox } from '../crypto';
import type { Database, Db } from '../db';
import { withSystemScope } from '../db';
import type { Worker } from './service-definition';

/** A column of sealed secrets (the row's key is `id`). */
export interface SealedColumn {
  table: keyof Database;
  column: string;
}

export interface ResealCounts {
  examined: number;
  resealed: number;
  /** Opens with none of the box's keys: left as it is (its receiver answers as for a lost key). */
  unreadable: number;
}

const NO_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Re-seals under the box's current key every secret of `target` that opens only with a previous
 * key, a page of rows at a time (read, then one UPDATE per page), so the previous key can be
 * dropped afterwards. A row changed meanwhile (a new secret set through the API) is left alone:
 * the UPDATE only replaces the value it read. Idempotent, so replicas may run it side by side.
 */
export async function resealStoredSecrets(
  db: Db['db'],
  box: SecretBox,
  target: SealedColumn,
  options: { pageSize?: number; stopped?: () => boolean } = {},
): Promise<ResealCounts> {
  const counts: ResealCounts = { examined: 0, resealed: 0, unreadable: 0 };
  const table = sql.table(target.table);
  const column = sql.ref(target.column);
  let after = NO_ID;
  while (!options.stopped?.()) {
    const { rows } = await withSystemScope(db, (trx) =>
      sql<{ id: string; sealed: string }>`SELECT id, ${column} AS sealed FROM ${table}
        WHERE id > ${after} AND ${column} IS NOT NULL ORDER BY id LIMIT ${options.pageSize ?? 500}`.execute(
        trx,
      ),
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1].id;
    counts.examined += rows.length;
    const changes = rows.flatMap((row) => {
      const fresh = box.reseal(row.sealed);
      if (fresh === undefined && box.open(row.sealed) === undefined) counts.unreadable += 1;
      return fresh === undefined ? [] : [{ ...row, fresh }];
    });
    if (changes.length === 0) continue;
    const { numAffectedRows } = await withSystemScope(db, (trx) =>
      sql`UPDATE ${table} AS t SET ${column} = u.fresh
        FROM unnest(${changes.map((c) => c.id)}::uuid[], ${changes.map((c) => c.sealed)}::text[],
                    ${changes.map((c) => c.fresh)}::text[]) AS u(id, sealed, fresh)
        WHERE t.id = u.id AND t.${column} = u.sealed`.execute(trx),
    );
    counts.resealed += Number(numAffectedRows ?? 0);
  }
  return counts;
}

/**
 * A worker that re-seals `targets` once in the background after start (a service adds it while a
 * previous secrets key is configured). stop() lets the page in hand finish.
 */
export function resealSecretsWorker(
  deps: { db: Db['db']; logger: Logger },
  box: SecretBox,
  targets: readonly SealedColumn[],
): Worker {
  let stopped = false;
  let running: Promise<void> | undefined;
  async function resealAll(): Promise<void> {
    for (const target of targets) {
      const counts = await resealStoredSecrets(deps.db, box, target, { stopped: () => stopped });
      deps.logger.info({ ...target, ...counts }, 'stored secrets re-sealed under the current key');
    }
  }
  return {
    name: 'reseal-secrets',
    async start() {
      running = resealAll().catch((err: unknown) => {
        // Not fatal: the previous key still opens them; the next start tries again.
        deps.logger.error({ err }, 're-sealing stored secrets failed');
      });
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
