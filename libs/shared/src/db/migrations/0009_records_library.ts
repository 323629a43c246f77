import { sql, type Kysely } from 'kysely';
import { enableTenantRls } from './tenant-rls';

/**
 * The record types libs/records writes for every service, in the tables the
 * receivers already use where they fit:
 *
 * - contacts gain `external_id` (the sender's own id: MCP and migrate upsert by it, unique per
 *   tenant where set), `company` and `title`; an index on phone links a conversation to its
 *   contact by phone;
 * - products are new: unique per tenant by `sku`; `price` is an unconstrained numeric, so the
 *   decimal a client sent is stored and read back exactly (`19.90` stays `19.90`);
 * - a conversation's subject, status, start and contact live beside it in
 *   `chat_conversation_details` (one row per conversation, for those that have any), so the
 *   conversations the messaging receiver writes and the ones MCP ingests are one table, read
 *   as one view by the records library. Messages need no new column: an ingested message's
 *   sender travels in its `payload`, as a provider's does.
 */
export const CONVERSATION_STATUSES = ['open', 'pending', 'closed'] as const;

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE crm_contacts
    ADD COLUMN external_id text CHECK (length(external_id) BETWEEN 1 AND 200),
    ADD COLUMN company text,
    ADD COLUMN title text`.execute(db);
  await sql`CREATE UNIQUE INDEX crm_contacts_external_id ON crm_contacts (tenant_id, external_id)
    WHERE external_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX crm_contacts_by_phone ON crm_contacts (tenant_id, phone)
    WHERE phone IS NOT NULL`.execute(db);

  await sql`CREATE TABLE crm_products (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    sku text NOT NULL CHECK (length(sku) BETWEEN 1 AND 100),
    name text,
    description text,
    price numeric CHECK (price >= 0),
    currency text CHECK (currency ~ '^[A-Z]{3}$'),
    active boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, sku)
  )`.execute(db);
  await sql`CREATE INDEX crm_products_by_created ON crm_products (tenant_id, created_at DESC, id)`.execute(
    db,
  );
  await enableTenantRls(db, 'crm_products');

  await sql`CREATE TABLE chat_conversation_details (
    conversation_id uuid PRIMARY KEY REFERENCES chat_conversations(id) ON DELETE CASCADE,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    subject text,
    status text CHECK (status IN (${list(CONVERSATION_STATUSES)})),
    started_at timestamptz,
    contact_id uuid REFERENCES crm_contacts(id) ON DELETE SET NULL,
    contact_email text CHECK (contact_email = lower(contact_email)),
    contact_phone text,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX chat_conversation_details_by_contact ON chat_conversation_details (tenant_id, contact_id)
    WHERE contact_id IS NOT NULL`.execute(db);
  await enableTenantRls(db, 'chat_conversation_details');
  // A message names its conversation by external id alone (the channel is optional there).
  await sql`CREATE INDEX chat_conversations_by_external_id ON chat_conversations (tenant_id, external_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS chat_conversations_by_external_id`.execute(db);
  await sql`DROP TABLE IF EXISTS chat_conversation_details, crm_products`.execute(db);
  await sql`DROP INDEX IF EXISTS crm_contacts_by_phone`.execute(db);
  await sql`DROP INDEX IF EXISTS crm_contacts_external_id`.execute(db);
  await sql`ALTER TABLE crm_contacts
    DROP COLUMN IF EXISTS title,
    DROP COLUMN IF EXISTS company,
    DROP COLUMN IF EXISTS external_id`.execute(db);
}
