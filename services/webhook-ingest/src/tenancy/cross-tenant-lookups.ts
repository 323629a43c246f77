/**
 * webhook-ingest's cross-tenant lookups: a delivery names a provider
 * account, number, message or connection, never a tenant; these resolve it. Each takes a
 * transaction in the system scope (a DeliveryScope's `trx`, or `withSystemScope(db, ...)`
 * before a delivery is claimed) and returns only what it resolves. Nothing else in
 * webhook-ingest reads outside a tenant scope, but the claim proofs of identifier-proofs.ts and
 * the audit view's payload, read by the key of a ledger row the tenant has read under its own
 * row-level security (integrations/inbound-events.routes.ts).
 *
 * Network accounts, messaging accounts and telephony numbers resolve a tenant only through
 * their proven claim (docs/integrations.md, Proving an identifier): a claim nobody proved is
 * never routed.
 */
import type { PaymentProvider, Trx } from '@crm/shared/db';
import { sql } from 'kysely';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Email events: provider message id -> the original send and its tenant. */
export async function findEmailMessage(
  trx: Trx,
  providerMessageId: string,
): Promise<{ tenantId: string; messageId: string } | undefined> {
  return trx
    .selectFrom('email_messages')
    .select(['tenant_id as tenantId', 'id as messageId'])
    .where('provider_message_id', '=', providerMessageId)
    .executeTakeFirst();
}

/** Network events: the partner's account ids -> account and tenant, for those that match. */
export async function findNetworkAccounts(
  trx: Trx,
  externalAccountIds: string[],
): Promise<Map<string, { tenantId: string; accountId: string }>> {
  const found = new Map<string, { tenantId: string; accountId: string }>();
  if (externalAccountIds.length === 0) return found;
  const rows = await trx
    .selectFrom('network_accounts')
    .select(['external_account_id', 'tenant_id', 'id'])
    .where('external_account_id', 'in', [...new Set(externalAccountIds)])
    .where('proven_at', 'is not', null)
    .execute();
  for (const row of rows)
    found.set(row.external_account_id, { tenantId: row.tenant_id, accountId: row.id });
  return found;
}

/** Messaging: the business phone_number_id -> its proven messaging account and tenant. */
export async function findMessagingAccount(
  trx: Trx,
  phoneNumberId: string,
): Promise<{ tenantId: string; accountId: string } | undefined> {
  return trx
    .selectFrom('messaging_accounts')
    .select(['tenant_id as tenantId', 'id as accountId'])
    .where('phone_number_id', '=', phoneNumberId)
    .where('proven_at', 'is not', null)
    .executeTakeFirst();
}

/** Telephony: E.164 numbers (called and calling) -> the proven tenant numbers among them. */
export async function findTelephonyNumbers(
  trx: Trx,
  phoneNumbers: string[],
): Promise<Map<string, { tenantId: string; numberId: string }>> {
  const found = new Map<string, { tenantId: string; numberId: string }>();
  const wanted = [...new Set(phoneNumbers.filter(Boolean))];
  if (wanted.length === 0) return found;
  const rows = await trx
    .selectFrom('telephony_numbers')
    .select(['phone_number', 'tenant_id', 'id'])
    .where('phone_number', 'in', wanted)
    .where('proven_at', 'is not', null)
    .execute();
  for (const row of rows)
    found.set(row.phone_number, { tenantId: row.tenant_id, numberId: row.id });
  return found;
}

export interface StoredConnection {
  tenantId: string;
  connectionId: string;
  /** Sealed with the service's SecretBox; null when no secret is stored. */
  secretCiphertext: string | null;
}

export interface StorefrontClaim extends StoredConnection {
  /** When a delivery verified with this connection's own secret first arrived. */
  provenAt: Date | null;
}

/**
 * Storefronts: (platform, shop domain or source URL) -> every tenant's connection to that
 * shop (several tenants may claim one), the earliest proven first, then the oldest. Which one
 * a delivery belongs to is decided by whose secret verifies it (storefront-routing.ts).
 */
export async function findStorefrontClaims(
  trx: Trx,
  platform: 'storefront_a' | 'storefront_b',
  shopIdentifier: string,
): Promise<StorefrontClaim[]> {
  return trx
    .selectFrom('storefront_connections')
    .select([
      'tenant_id as tenantId',
      'id as connectionId',
      'webhook_secret_ciphertext as secretCiphertext',
      'proven_at as provenAt',
    ])
    .where('platform', '=', platform)
    .where('shop_identifier', '=', shopIdentifier)
    .orderBy(sql`proven_at NULLS LAST`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Records that a delivery verified with the connection's own secret has arrived. */
export async function markStorefrontProven(trx: Trx, connectionId: string): Promise<void> {
  await trx
    .updateTable('storefront_connections')
    .set({ proven_at: sql`now()` })
    .where('id', '=', connectionId)
    .where('proven_at', 'is', null)
    .execute();
}

/** Payments: the connection id in the receiver URL -> provider, tenant and sealed secret. */
export async function findPaymentConnection(
  trx: Trx,
  connectionId: string,
): Promise<(StoredConnection & { provider: PaymentProvider }) | undefined> {
  if (!UUID.test(connectionId)) return undefined;
  return trx
    .selectFrom('payment_connections')
    .select([
      'tenant_id as tenantId',
      'id as connectionId',
      'provider',
      'webhook_secret_ciphertext as secretCiphertext',
    ])
    .where('id', '=', connectionId)
    .executeTakeFirst();
}

/**
 * Billing: the tenant an event is about: the `tenant_id` our checkout put in its metadata
 * (when that tenant exists), else the tenant that owns the stored customer id.
 */
export async function findBillingTenant(
  trx: Trx,
  hints: { metadataTenantId?: string; customerId?: string },
): Promise<string | undefined> {
  if (hints.metadataTenantId && UUID.test(hints.metadataTenantId)) {
    const tenant = await trx
      .selectFrom('tenants')
      .select('id')
      .where('id', '=', hints.metadataTenantId)
      .executeTakeFirst();
    if (tenant) return tenant.id;
  }
  if (hints.customerId) {
    const row = await trx
      .selectFrom('billing_subscriptions')
      .select('tenant_id')
      .where('provider_customer_id', '=', hints.customerId)
      .orderBy('updated_at', 'desc')
      .executeTakeFirst();
    if (row) return row.tenant_id;
  }
  return undefined;
}

/**
 * Billing's one system-scope write: a tenant's plan lives on `tenants`, which the tenant role
 * may only read (a tenant must not upgrade itself).
 */
export async function setTenantPlan(trx: Trx, tenantId: string, plan: string): Promise<void> {
  await trx.updateTable('tenants').set({ plan }).where('id', '=', tenantId).execute();
}
