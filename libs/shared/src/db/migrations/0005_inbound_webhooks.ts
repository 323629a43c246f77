import { sql, type Kysely } from 'kysely';
import { enableTenantRls } from './tenant-rls';

/**
 * webhook-ingest's records:
 * the inbound event ledger, the provider accounts and connections that resolve a delivery's
 * tenant, and the activity the receivers store. Every table is tenant-owned under row-level
 * security; the ledger's tenant is null while (or because) a delivery's tenant is unknown.
 *
 * Connection secrets (`*_secret_ciphertext`) are AES-256-GCM ciphertexts: a signature secret
 * must be read back to compute an HMAC, so it cannot be hashed like a password; it is
 * encrypted at rest instead and never returned by any route.
 */
export const INBOUND_OUTCOMES = ['processed', 'ignored', 'unmatched', 'failed'] as const;
export const INBOUND_VERIFICATIONS = ['verified', 'unverified', 'skipped'] as const;
export const STOREFRONT_PLATFORMS = ['storefront_a', 'storefront_b'] as const;
export const PAYMENT_PROVIDERS = ['stripe', 'razorpay', 'paddle', 'lemonsqueezy'] as const;
export const NETWORK_ACTIVITY_KINDS = [
  'network_connection_sent',
  'network_connection_accepted',
  'network_message_sent',
  'network_message_received',
  'network_profile_viewed',
  'network_post_reaction',
  'network_post_comment',
] as const;

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

export async function up(db: Kysely<unknown>): Promise<void> {
  // The ledger: one row per accepted delivery, unique per (provider, delivery id), so a
  // redelivery writes nothing new. A failed delivery may be retried (the receiver re-claims it).
  await sql`CREATE TABLE inbound_events (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid REFERENCES tenants(id) ON DELETE CASCADE,
    provider text NOT NULL,
    delivery_id text NOT NULL CHECK (length(delivery_id) BETWEEN 1 AND 500),
    event_type text,
    content_type text,
    raw_body text NOT NULL,
    verification text NOT NULL CHECK (verification IN (${list(INBOUND_VERIFICATIONS)})),
    outcome text NOT NULL CHECK (outcome IN (${list(INBOUND_OUTCOMES)})),
    detail text,
    attempts integer NOT NULL DEFAULT 1,
    received_at timestamptz NOT NULL DEFAULT now(),
    processed_at timestamptz,
    UNIQUE (provider, delivery_id)
  )`.execute(db);
  await sql`CREATE INDEX inbound_events_by_tenant ON inbound_events (tenant_id, received_at DESC, id)`.execute(
    db,
  );
  await enableTenantRls(db, 'inbound_events');

  // Email (specified): original sends, looked up by provider_message_id; opens, clicks, replies.
  await sql`CREATE TABLE email_messages (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    provider_message_id text NOT NULL UNIQUE,
    to_email text,
    subject text,
    lead_id uuid REFERENCES crm_leads(id) ON DELETE SET NULL,
    contact_id uuid REFERENCES crm_contacts(id) ON DELETE SET NULL,
    sent_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await enableTenantRls(db, 'email_messages');
  for (const [table, extra] of [
    ['email_opens', sql``],
    ['email_clicks', sql`target_url text NOT NULL,`],
    ['email_replies', sql`snippet text, from_email text,`],
  ] as const) {
    await sql`CREATE TABLE ${sql.table(table)} (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      message_id uuid NOT NULL REFERENCES email_messages(id) ON DELETE CASCADE,
      ${extra}
      user_agent text,
      ip_address text,
      occurred_at timestamptz,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
    await sql`CREATE INDEX ${sql.id(`${table}_by_message`)} ON ${sql.table(table)} (tenant_id, message_id)`.execute(
      db,
    );
    await enableTenantRls(db, table);
  }

  // Professional network: the partner's account id resolves the tenant.
  await sql`CREATE TABLE network_accounts (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    external_account_id text NOT NULL UNIQUE CHECK (length(external_account_id) BETWEEN 1 AND 200),
    name text,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await enableTenantRls(db, 'network_accounts');
  await sql`CREATE TABLE network_events (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    account_id uuid NOT NULL REFERENCES network_accounts(id) ON DELETE CASCADE,
    external_event_id text,
    kind text NOT NULL CHECK (kind IN (${list(NETWORK_ACTIVITY_KINDS)})),
    event_type text NOT NULL,
    actor jsonb,
    occurred_at timestamptz,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX network_events_external_id ON network_events (account_id, external_event_id) WHERE external_event_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX network_events_by_tenant ON network_events (tenant_id, created_at DESC)`.execute(
    db,
  );
  await enableTenantRls(db, 'network_events');

  // Messaging cloud API: a phone_number_id belongs to one tenant; conversations and messages.
  await sql`CREATE TABLE messaging_accounts (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    phone_number_id text NOT NULL UNIQUE CHECK (length(phone_number_id) BETWEEN 1 AND 100),
    display_phone_number text,
    name text,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await enableTenantRls(db, 'messaging_accounts');
  await sql`CREATE TABLE chat_conversations (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    channel text NOT NULL DEFAULT 'messaging',
    messaging_account_id uuid REFERENCES messaging_accounts(id) ON DELETE SET NULL,
    external_id text NOT NULL,
    contact_name text,
    last_message_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, channel, external_id)
  )`.execute(db);
  await enableTenantRls(db, 'chat_conversations');
  await sql`CREATE TABLE chat_messages (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    conversation_id uuid NOT NULL REFERENCES chat_conversations(id) ON DELETE CASCADE,
    external_id text NOT NULL,
    direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
    message_type text,
    body text,
    status text,
    sent_at timestamptz,
    payload jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, external_id)
  )`.execute(db);
  await sql`CREATE INDEX chat_messages_by_conversation ON chat_messages (tenant_id, conversation_id, sent_at)`.execute(
    db,
  );
  await enableTenantRls(db, 'chat_messages');

  // Telephony: an E.164 number belongs to one tenant; call logs are upserted by call id.
  await sql`CREATE TABLE telephony_numbers (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    phone_number text NOT NULL UNIQUE CHECK (phone_number ~ '^\\+[1-9][0-9]{6,14}$'),
    name text,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await enableTenantRls(db, 'telephony_numbers');
  await sql`CREATE TABLE call_logs (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    number_id uuid REFERENCES telephony_numbers(id) ON DELETE SET NULL,
    call_id text NOT NULL,
    direction text,
    from_number text,
    to_number text,
    status text NOT NULL,
    duration_seconds integer,
    payload jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, call_id)
  )`.execute(db);
  await enableTenantRls(db, 'call_logs');

  // Storefronts A and B: a connection per shop, found by its shop identifier (A: shop domain,
  // B: webhook source URL); orders upserted by the platform's order id.
  await sql`CREATE TABLE storefront_connections (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    platform text NOT NULL CHECK (platform IN (${list(STOREFRONT_PLATFORMS)})),
    shop_identifier text NOT NULL CHECK (length(shop_identifier) BETWEEN 1 AND 500),
    name text,
    webhook_secret_ciphertext text,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (platform, shop_identifier)
  )`.execute(db);
  await enableTenantRls(db, 'storefront_connections');
  await sql`CREATE TABLE commerce_orders (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    connection_id uuid NOT NULL REFERENCES storefront_connections(id) ON DELETE CASCADE,
    external_order_id text NOT NULL,
    order_number text,
    email text,
    contact_id uuid REFERENCES crm_contacts(id) ON DELETE SET NULL,
    total numeric(16, 2),
    currency text,
    status text,
    payload jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (connection_id, external_order_id)
  )`.execute(db);
  await enableTenantRls(db, 'commerce_orders');

  // Payments: a connection per provider account, addressed by id in the receiver URL.
  await sql`CREATE TABLE payment_connections (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    provider text NOT NULL CHECK (provider IN (${list(PAYMENT_PROVIDERS)})),
    name text,
    webhook_secret_ciphertext text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await enableTenantRls(db, 'payment_connections');
  await sql`CREATE TABLE payment_events (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    connection_id uuid NOT NULL REFERENCES payment_connections(id) ON DELETE CASCADE,
    provider text NOT NULL,
    external_event_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('payment.succeeded', 'payment.failed', 'payment.refunded')),
    amount numeric(16, 2),
    currency text,
    email text,
    contact_id uuid REFERENCES crm_contacts(id) ON DELETE SET NULL,
    payload jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (connection_id, external_event_id)
  )`.execute(db);
  await enableTenantRls(db, 'payment_events');

  // Billing (our own subscription provider): the tenant's plan and subscription state.
  await sql`CREATE TABLE billing_subscriptions (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    provider_customer_id text,
    provider_subscription_id text NOT NULL UNIQUE,
    plan text,
    status text NOT NULL,
    current_period_end timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX billing_subscriptions_by_customer ON billing_subscriptions (provider_customer_id)`.execute(
    db,
  );
  await enableTenantRls(db, 'billing_subscriptions');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS billing_subscriptions, payment_events, payment_connections,
    commerce_orders, storefront_connections, call_logs, telephony_numbers, chat_messages,
    chat_conversations, messaging_accounts, network_events, network_accounts, email_replies,
    email_clicks, email_opens, email_messages, inbound_events`.execute(db);
}
