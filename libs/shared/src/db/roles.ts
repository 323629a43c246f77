/**
 * Postgres roles the application switches to inside a transaction (SET LOCAL ROLE). Neither
 * owns a tenant table, so row-level security always applies to them, even when the connection
 * itself is a superuser or the tables' owner. The system role owns only what has no tenant_id
 * and no row-level security: the search views (migrations 0024, 0025) and the ledger's payload
 * table with its weekly partitions (0031), which its retention worker creates and drops.
 */

/** Tenant work: sees and writes only rows whose tenant_id equals `app.tenant_id`. */
export const TENANT_ROLE = 'crm_app';

/**
 * The few named cross-tenant lookups (session -> memberships, slug -> tenant, key hash ->
 * tenant, the outbox relay). Each tenant table grants it a policy of its own.
 */
export const SYSTEM_ROLE = 'crm_system';

/** The session setting the tenant policies read, through the SQL function app_current_tenant(). */
export const TENANT_SETTING = 'app.tenant_id';
