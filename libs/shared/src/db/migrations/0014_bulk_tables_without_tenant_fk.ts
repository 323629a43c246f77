import { sql, type Kysely } from 'kysely';

/**
 * The three tables bulk writes fill (a lead import, its events, a receiver's network batch)
 * drop their foreign key to `tenants`. Measured on 10,000-row inserts: the key's
 * per-row check costs ~45 ms on crm_leads and ~40-75 ms on event_outbox, a fifth of the
 * import's database time, and it checks nothing row-level security does not already: a row's
 * tenant_id must equal the transaction's `app.tenant_id`, which is only ever set to a tenant
 * resolved from a session, a key or a connection, so the tenant exists. Tenants are never
 * deleted (no route or job does); the day one is, its rows in these tables are deleted by it
 * explicitly. Every other table keeps its key.
 */
const TABLES = ['crm_leads', 'event_outbox', 'network_events'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`ALTER TABLE ${sql.table(table)} DROP CONSTRAINT IF EXISTS ${sql.ref(`${table}_tenant_id_fkey`)}`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.ref(`${table}_tenant_id_fkey`)}
      FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE`.execute(db);
  }
}
