import type { Trx } from '@crm/shared/db';
import { sql, type Expression } from 'kysely';
import type { ExportRow } from './export-resources';

/**
 * Reads `query` through a server-side cursor in batches of `batchSize`, so only one batch is
 * in memory at a time, however many rows match. Runs inside the caller's transaction (the
 * cursor lives until it ends), which also gives every batch the same snapshot. Closing the
 * generator early (return/throw) closes the cursor.
 */
export async function* rowBatches(
  trx: Trx,
  query: Expression<unknown>,
  batchSize: number,
): AsyncGenerator<ExportRow[], void, undefined> {
  await sql`DECLARE crm_export NO SCROLL CURSOR FOR ${query}`.execute(trx);
  let open = true;
  try {
    for (;;) {
      const { rows } =
        await sql<ExportRow>`FETCH FORWARD ${sql.lit(batchSize)} FROM crm_export`.execute(trx);
      if (rows.length > 0) yield rows;
      if (rows.length < batchSize) break;
    }
    await sql`CLOSE crm_export`.execute(trx);
    open = false;
  } finally {
    // Left early (a client gone, a failed write): free the portal now, not at commit. A failed
    // transaction refuses the CLOSE too, and its rollback frees the portal anyway.
    if (open) await sql`CLOSE crm_export`.execute(trx).catch(() => undefined);
  }
}
