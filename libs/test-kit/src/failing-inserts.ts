import { randomUUID } from 'node:crypto';
import type { Db } from '@crm/shared/db';
import { sql } from 'kysely';

/**
 * Makes every INSERT of one tenant's rows into `table` fail, as an outage would (a plain
 * exception, SQLSTATE P0001, not a data exception: the ledger keeps such a delivery as failed
 * and retryable), until the returned `restore()` drops the trigger. Other tenants' inserts,
 * from test files running in parallel, are untouched.
 */
export async function failInsertsOf(
  db: Db,
  table: string,
  tenantId: string,
): Promise<{ restore: () => Promise<void> }> {
  const fn = `test_fail_inserts_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await sql
    .raw(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.tenant_id = '${tenantId}'::uuid THEN
           RAISE EXCEPTION 'simulated outage writing ${table}';
         END IF;
         RETURN NEW;
       END $$;
       CREATE TRIGGER ${fn} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}();`,
    )
    .execute(db.db);
  return {
    restore: async () => {
      await sql
        .raw(`DROP TRIGGER IF EXISTS ${fn} ON ${table}; DROP FUNCTION IF EXISTS ${fn}();`)
        .execute(db.db);
    },
  };
}
