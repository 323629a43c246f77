import { sql, type Kysely } from 'kysely';
import { INBOUND_OUTCOMES } from './0005_inbound_webhooks';

/**
 * Provider identifiers are claims a tenant must prove before deliveries are routed to it
 * (docs/integrations.md, Proving an identifier):
 *
 * - messaging numbers, network accounts and telephony numbers (signed with one platform-wide
 *   secret, which proves the provider sent a delivery but not which tenant owns what it names):
 *   any number of tenants may claim one identifier, each claim gets a `proof_token` for its
 *   verification URL, and at most one claim per identifier is proven (`proven_at`); only that
 *   one is routed.
 * - storefront connections (signed per connection): any number of tenants may claim a shop;
 *   a delivery goes to the claim whose own secret verifies it, and `proven_at` records the
 *   first such delivery.
 *
 * Either way an identifier is unique within one tenant only, so registering it never tells a
 * tenant whether another one claims it. Deliveries that no proven claim owns are recorded in
 * the ledger as `held`, with no tenant.
 *
 * Claims made before this migration were each the only claim of their identifier and have
 * been receiving its deliveries; they are kept routed (proven at their creation) rather than
 * cutting every existing tenant off until it proves its numbers again.
 */
export const HELD_OUTCOME = 'held';

const PLATFORM_WIDE = [
  ['messaging_accounts', 'phone_number_id', 'messaging_accounts_phone_number_id_key'],
  ['network_accounts', 'external_account_id', 'network_accounts_external_account_id_key'],
  ['telephony_numbers', 'phone_number', 'telephony_numbers_phone_number_key'],
] as const;

const outcomes = (values: readonly string[]) =>
  sql.raw(values.map((value) => `'${value}'`).join(', '));

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_outcome_check`.execute(db);
  await sql`ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_outcome_check
    CHECK (outcome IN (${outcomes([...INBOUND_OUTCOMES, HELD_OUTCOME])}))`.execute(db);
  // A held delivery belongs to no tenant: no tenant's ledger view may ever show it.
  await sql`ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_held_has_no_tenant
    CHECK (outcome <> ${sql.lit(HELD_OUTCOME)} OR tenant_id IS NULL)`.execute(db);

  for (const [table, column, uniqueKey] of PLATFORM_WIDE) {
    const t = sql.table(table);
    const c = sql.ref(column);
    await sql`ALTER TABLE ${t} ADD COLUMN proven_at timestamptz`.execute(db);
    // 244 random bits: names the claim in its verification URL (not a secret: see the docs).
    await sql`ALTER TABLE ${t} ADD COLUMN proof_token text NOT NULL
      DEFAULT replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '')`.execute(
      db,
    );
    await sql`UPDATE ${t} SET proven_at = created_at`.execute(db);
    await sql`ALTER TABLE ${t} DROP CONSTRAINT ${sql.id(uniqueKey)}`.execute(db);
    await sql`ALTER TABLE ${t} ADD CONSTRAINT ${sql.id(`${table}_per_tenant`)} UNIQUE (tenant_id, ${c})`.execute(
      db,
    );
    await sql`CREATE UNIQUE INDEX ${sql.id(`${table}_one_proven`)} ON ${t} (${c}) WHERE proven_at IS NOT NULL`.execute(
      db,
    );
    await sql`CREATE UNIQUE INDEX ${sql.id(`${table}_proof_token`)} ON ${t} (proof_token)`.execute(
      db,
    );
  }

  await sql`ALTER TABLE storefront_connections ADD COLUMN proven_at timestamptz`.execute(db);
  await sql`ALTER TABLE storefront_connections
    DROP CONSTRAINT storefront_connections_platform_shop_identifier_key`.execute(db);
  await sql`ALTER TABLE storefront_connections ADD CONSTRAINT storefront_connections_per_tenant
    UNIQUE (tenant_id, platform, shop_identifier)`.execute(db);
  await sql`CREATE INDEX storefront_connections_by_shop
    ON storefront_connections (platform, shop_identifier)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Fails while an identifier has several claims: which one to keep is an operator's decision.
  await sql`DROP INDEX storefront_connections_by_shop`.execute(db);
  await sql`ALTER TABLE storefront_connections DROP CONSTRAINT storefront_connections_per_tenant`.execute(
    db,
  );
  await sql`ALTER TABLE storefront_connections
    ADD CONSTRAINT storefront_connections_platform_shop_identifier_key UNIQUE (platform, shop_identifier)`.execute(
    db,
  );
  await sql`ALTER TABLE storefront_connections DROP COLUMN proven_at`.execute(db);
  for (const [table, column, uniqueKey] of PLATFORM_WIDE) {
    const t = sql.table(table);
    await sql`DROP INDEX ${sql.id(`${table}_proof_token`)}`.execute(db);
    await sql`DROP INDEX ${sql.id(`${table}_one_proven`)}`.execute(db);
    await sql`ALTER TABLE ${t} DROP CONSTRAINT ${sql.id(`${table}_per_tenant`)}`.execute(db);
    await sql`ALTER TABLE ${t} ADD CONSTRAINT ${sql.id(uniqueKey)} UNIQUE (${sql.ref(column)})`.execute(
      db,
    );
    await sql`ALTER TABLE ${t} DROP COLUMN proof_token, DROP COLUMN proven_at`.execute(db);
  }
  await sql`DELETE FROM inbound_events WHERE outcome = ${sql.lit(HELD_OUTCOME)}`.execute(db);
  await sql`ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_held_has_no_tenant`.execute(
    db,
  );
  await sql`ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_outcome_check`.execute(db);
  await sql`ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_outcome_check
    CHECK (outcome IN (${outcomes(INBOUND_OUTCOMES)}))`.execute(db);
}
