import { withSystemScope, withTenant, type Trx } from '@crm/shared/db';
import type { Db } from '@crm/shared/db';
import { createTenant, outboxEvents } from '@crm/shared/testing';
import { sql } from 'kysely';

/** Database tier support: tenants, their rows and their outbox events as stored. */
export function recordsDb(database: Db) {
  return {
    tenant: async () => (await createTenant(database)).id,
    asTenant: <T>(tenantId: string, fn: (trx: Trx) => Promise<T>) =>
      withTenant(database.db, tenantId, fn),
    /** Every row of `table` for the tenant, oldest first, read past RLS. */
    rows: (table: string, tenantId: string) =>
      withSystemScope(database.db, async (trx) => {
        const { rows } = await sql<Record<string, unknown>>`
          SELECT * FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`.execute(trx);
        return rows;
      }),
    /** The tenant's outbox events in commit order: type, record and data. */
    events: async (tenantId: string) =>
      (await outboxEvents(database, tenantId)).map(({ envelope: e }) => ({
        type: e.type,
        record: e.record,
        data: e.data,
      })),
  };
}
