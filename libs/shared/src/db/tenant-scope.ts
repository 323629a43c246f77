import { sql, type Kysely, type Transaction } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import { errors } from '../errors';
import { SYSTEM_ROLE, TENANT_ROLE } from './roles';
import type { Database } from './schema';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Trx = Transaction<Database>;

/**
 * Runs `fn` in a transaction as the non-owner tenant role with `app.tenant_id` set, so every
 * row-level policy filters to `tenantId`: a query that forgets `where tenant_id = ...` still
 * sees only this tenant, and a row for another tenant cannot be written. Both settings are
 * LOCAL and end with the transaction, so a pooled connection never carries them over.
 */
export async function withTenant<T>(
  db: Kysely<Database>,
  tenantId: string,
  fn: (trx: Trx) => Promise<T>,
): Promise<T> {
  const settings = tenantSettings(tenantId);
  return db.transaction().execute(async (trx) => {
    await sql.raw(settings).execute(trx);
    return fn(trx);
  });
}

/** The statements that scope a transaction to `tenantId` (role and `app.tenant_id`). */
function tenantSettings(tenantId: string): string {
  // Checked so the id can be inlined: one round trip for both settings.
  if (!UUID.test(tenantId)) throw errors.validation('Invalid tenant id');
  return `SET LOCAL ROLE ${TENANT_ROLE}; SET LOCAL app.tenant_id = '${tenantId.toLowerCase()}'`;
}

/**
 * withTenant for work a Kysely transaction cannot carry, such as `COPY ... TO STDOUT` through
 * pg-copy-streams: `fn` gets the pool's client inside a transaction scoped to `tenantId` exactly
 * as withTenant's. When `fn` fails the connection is not trusted back into the pool (a COPY left
 * half read would leave it mid-protocol): it is closed, which also ends its transaction.
 */
export async function withTenantClient<T>(
  pool: Pool,
  tenantId: string,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const settings = tenantSettings(tenantId);
  const client = await pool.connect();
  try {
    await client.query(`BEGIN; ${settings}`);
    const result = await fn(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    client.release(err instanceof Error ? err : true);
    throw err;
  }
}

/**
 * Runs `fn` as the system role, which the tenant tables let through their `system_access` policy.
 * Only the named cross-tenant lookups (one `tenancy/cross-tenant-lookups.ts` per service) and the
 * outbox relay use it; everything else goes through withTenant.
 */
export async function withSystemScope<T>(
  db: Kysely<Database>,
  fn: (trx: Trx) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql.raw(`SET LOCAL ROLE ${SYSTEM_ROLE}`).execute(trx);
    return fn(trx);
  });
}

/**
 * Inside a transaction opened by withSystemScope: runs `fn` as the tenant role with
 * `app.tenant_id` set, then returns to the system role, so one transaction can do named
 * cross-tenant lookups and the tenant's own writes under row-level security, and they commit or
 * roll back together (the inbound ledger's unit of work). SET LOCAL lasts until the transaction
 * ends, so nothing leaks to the pool.
 */
export async function asTenant<T>(
  trx: Trx,
  tenantId: string,
  fn: (trx: Trx) => Promise<T>,
): Promise<T> {
  // One round trip for both: set_config('role', ..., true) is SET LOCAL ROLE.
  await sql`SELECT set_config('app.tenant_id', ${tenantId}, true), set_config('role', ${TENANT_ROLE}, true)`.execute(
    trx,
  );
  const result = await fn(trx);
  await sql.raw(`SET LOCAL ROLE ${SYSTEM_ROLE}`).execute(trx);
  return result;
}
