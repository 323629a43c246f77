import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/**
 * The typed shape of the database, one interface per table. Later issues add their tables
 * here together with the migration that creates them.
 */
export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  tenant_users: TenantUsersTable;
  tenant_invitations: TenantInvitationsTable;
  sessions: SessionsTable;
  event_outbox: EventOutboxTable;
  rate_limits: RateLimitsTable;
  crm_leads: LeadsTable;
  import_jobs: ImportJobsTable;
  crm_contacts: ContactsTable;
  /** Views of the tenant's rows with their search text, read when a list searches (`q`). */
  crm_lead_search: LeadsTable & SearchText;
  crm_contact_search: ContactsTable;
  /** The lead search's index, filled after commit (migration 0025); crm_system only. */
  crm_lead_search_texts: LeadSearchTextsTable;
  /** The tenant's rows of crm_lead_search_texts: candidates a search re-checks. */
  crm_lead_search_candidates: Omit<LeadSearchTextsTable, 'tenant_id'>;
  crm_products: ProductsTable;
  crm_deals: DealsTable;
  crm_web_forms: WebFormsTable;
  crm_form_submissions: FormSubmissionsTable;
  inbound_events: InboundEventsTable;
  /** The ledger's payloads, partitioned by week (migration 0031); crm_system only. */
  inbound_event_payloads: InboundEventPayloadsTable;
  email_messages: EmailMessagesTable;
  email_opens: EmailOpensTable;
  email_clicks: EmailClicksTable;
  email_replies: EmailRepliesTable;
  network_accounts: NetworkAccountsTable;
  network_events: NetworkEventsTable;
  messaging_accounts: MessagingAccountsTable;
  chat_conversations: ChatConversationsTable;
  chat_conversation_details: ChatConversationDetailsTable;
  chat_messages: ChatMessagesTable;
  telephony_numbers: TelephonyNumbersTable;
  call_logs: CallLogsTable;
  storefront_connections: StorefrontConnectionsTable;
  commerce_orders: CommerceOrdersTable;
  payment_connections: PaymentConnectionsTable;
  payment_events: PaymentEventsTable;
  billing_subscriptions: BillingSubscriptionsTable;
  mcp_keys: McpKeysTable;
  oauth_clients: OAuthClientsTable;
  oauth_authorization_requests: OAuthAuthorizationRequestsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  crm_activities: ActivitiesTable;
  migrate_nonces: MigrateNoncesTable;
  migration_records: MigrationRecordsTable;
  automation_workflows: AutomationWorkflowsTable;
  workflow_runs: WorkflowRunsTable;
  workflow_run_steps: WorkflowRunStepsTable;
}

/** A timestamptz column the caller must set. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamptz column with a database default (optional on insert). */
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface TenantsTable {
  id: Generated<string>;
  slug: string;
  name: string;
  plan: Generated<string>;
  created_at: DefaultedTimestamp;
}

export interface UsersTable {
  id: Generated<string>;
  /** Stored lower-cased; unique case-insensitively. */
  email: string;
  password_hash: string;
  name: string | null;
  created_at: DefaultedTimestamp;
}

/** A member's role in a tenant (the identity header carries it to the services). */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const MEMBERSHIP_STATUSES = ['active', 'invited', 'disabled'] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];

export interface TenantUsersTable {
  tenant_id: string;
  user_id: string;
  role: Role;
  status: MembershipStatus;
  joined_at: DefaultedTimestamp;
}

/**
 * An invitation to join a tenant, addressed to an email (with or without an account yet).
 * Pending while `accepted_at` is null; accepting adds the active `tenant_users` row.
 */
export interface TenantInvitationsTable {
  id: Generated<string>;
  tenant_id: string;
  /** Stored lower-cased. */
  email: string;
  role: Role;
  invited_by: string | null;
  created_at: DefaultedTimestamp;
  accepted_at: Date | null;
  accepted_by: string | null;
}

export interface SessionsTable {
  /** sha256 of the session token; the token itself lives only in the client's cookie. */
  token_hash: string;
  user_id: string;
  created_at: DefaultedTimestamp;
  expires_at: Timestamp;
}

export interface EventOutboxTable {
  /** Commit-order key the relay publishes by (bigint, returned as a string by pg). */
  seq: Generated<string>;
  /** The event id, also the JetStream message id (a batch row: its first event's). */
  id: string;
  tenant_id: string;
  /** The event type (a batch row: its events' one type, or `batch` when they differ). */
  type: string;
  /** One envelope, or (event_count > 1 or a batch row) a JSON array of envelopes. */
  envelope: ColumnType<unknown, string, string>;
  event_count: Generated<number>;
  created_at: DefaultedTimestamp;
  published_at: Timestamp | null;
  attempts: Generated<number>;
  last_error: string | null;
}

export type Tenant = Selectable<TenantsTable>;
export type NewTenant = Insertable<TenantsTable>;
export type User = Selectable<UsersTable>;
export type Membership = Selectable<TenantUsersTable>;
export type OutboxRow = Selectable<EventOutboxTable>;

/** Owned by rate-limiter-flexible's Postgres store (gateway). */
export interface RateLimitsTable {
  key: string;
  points: number;
  expire: string | null;
}

type Json = ColumnType<Record<string, unknown>, string | undefined, string>;

/** The lower-cased text a search (`q`) matches, a column of the search views. */
export interface SearchText {
  search_text: string;
}

export interface LeadSearchTextsTable {
  lead_id: string;
  tenant_id: string;
  search_text: string;
}

export interface LeadsTable {
  id: Generated<string>;
  tenant_id: string;
  /** Stored lower-cased; unique per tenant. */
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: Generated<string>;
  source: Generated<string>;
  custom_fields: Json;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface ImportJobsTable {
  id: Generated<string>;
  tenant_id: string;
  user_id: string | null;
  kind: Generated<string>;
  status: 'completed' | 'failed';
  total: number;
  imported: number;
  failed: number;
  started_at: Timestamp;
  finished_at: Timestamp;
  duration_ms: number;
}

export interface ContactsTable {
  id: Generated<string>;
  tenant_id: string;
  /** Stored lower-cased; unique per tenant where set. */
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  /** The sender's own id for the contact (MCP, migrate); unique per tenant where set (0009). */
  external_id: string | null;
  company: string | null;
  title: string | null;
  custom_fields: Json;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
  /** Names, email, phone and company, lower-cased: generated by Postgres (migration 0032). */
  search_text: ColumnType<string, never, never>;
}

/** A product, unique per tenant by sku (0009). */
export interface ProductsTable {
  id: Generated<string>;
  tenant_id: string;
  sku: string;
  name: string | null;
  description: string | null;
  /** Unconstrained numeric: pg returns the decimal exactly as stored, as a string. */
  price: ColumnType<string | null, string | null | undefined, string | null>;
  /** ISO 4217, upper case. */
  currency: string | null;
  active: Generated<boolean>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface DealsTable {
  id: Generated<string>;
  tenant_id: string;
  title: string;
  /** numeric(16,2): pg returns it as a string, so no precision is lost. */
  value: ColumnType<string, string | number | undefined, string | number>;
  currency: Generated<string>;
  stage: Generated<string>;
  assigned_to: string | null;
  lead_id: string | null;
  contact_id: string | null;
  expected_close_date: ColumnType<string | null, string | null | undefined, string | null>;
  custom_fields: Json;
  created_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface WebFormsTable {
  id: Generated<string>;
  tenant_id: string;
  slug: string;
  name: string;
  fields: ColumnType<unknown, string | undefined, string>;
  enabled: Generated<boolean>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface FormSubmissionsTable {
  id: Generated<string>;
  tenant_id: string;
  form_id: string;
  lead_id: string | null;
  payload: ColumnType<unknown, string, string>;
  created_at: DefaultedTimestamp;
}

/** A jsonb column written as a JSON string. */
type JsonWrite = ColumnType<unknown, string | undefined, string>;
/** numeric(16,2): pg returns it as a string, so no precision is lost. */
type Money = ColumnType<string | null, string | number | null | undefined, string | number | null>;

/**
 * `held`: a delivery for an identifier no tenant has proven (0017); recorded with no tenant,
 * so it is shown to none.
 */
export type InboundOutcome = 'processed' | 'ignored' | 'unmatched' | 'failed' | 'held';
export type InboundVerification = 'verified' | 'unverified' | 'skipped';

/** webhook-ingest's ledger: one row per accepted delivery, unique per (provider, delivery_id). */
export interface InboundEventsTable {
  id: Generated<string>;
  /** Null until (or because) the delivery's tenant is resolved. */
  tenant_id: string | null;
  provider: string;
  delivery_id: string;
  event_type: string | null;
  content_type: string | null;
  /**
   * The delivery's bytes, for rows recorded before migration 0031 (later ones keep them in
   * inbound_event_payloads and leave this null); null once retention dropped the payload.
   */
  raw_body: ColumnType<string | null, string | null | undefined, string | null>;
  /** The request headers, redacted before they were stored (ledgerHeaders); as raw_body. */
  headers: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  verification: InboundVerification;
  outcome: InboundOutcome;
  detail: string | null;
  attempts: Generated<number>;
  received_at: DefaultedTimestamp;
  processed_at: Timestamp | null;
}

/**
 * A ledger row's payload, keyed by the row's id and received_at (which picks the week's
 * partition). Written with the ledger's claim, dropped a week at a time by retention.
 */
export interface InboundEventPayloadsTable {
  ledger_id: string;
  received_at: Timestamp;
  /** The delivery's bytes (a NUL escaped: text cannot hold one). */
  raw_body: string;
  /** The request headers, redacted before they were stored (ledgerHeaders). */
  headers: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
}

export interface EmailMessagesTable {
  id: Generated<string>;
  tenant_id: string;
  provider_message_id: string;
  to_email: string | null;
  subject: string | null;
  lead_id: string | null;
  contact_id: string | null;
  sent_at: DefaultedTimestamp;
}

interface EmailActivityColumns {
  id: Generated<string>;
  tenant_id: string;
  message_id: string;
  user_agent: string | null;
  ip_address: string | null;
  occurred_at: Timestamp | null;
  metadata: JsonWrite;
  created_at: DefaultedTimestamp;
}
export type EmailOpensTable = EmailActivityColumns;
export interface EmailClicksTable extends EmailActivityColumns {
  target_url: string;
}
export interface EmailRepliesTable extends EmailActivityColumns {
  snippet: string | null;
  from_email: string | null;
}

export interface NetworkAccountsTable {
  id: Generated<string>;
  tenant_id: string;
  external_account_id: string;
  name: string | null;
  /** When the tenant proved it controls the identifier; only a proven claim is routed. */
  proven_at: Timestamp | null;
  /** Names the claim in its verification URL (0017). */
  proof_token: Generated<string>;
  created_at: DefaultedTimestamp;
}

export interface NetworkEventsTable {
  id: Generated<string>;
  tenant_id: string;
  account_id: string;
  external_event_id: string | null;
  kind: string;
  event_type: string;
  actor: JsonWrite | null;
  occurred_at: Timestamp | null;
  payload: JsonWrite;
  created_at: DefaultedTimestamp;
}

export interface MessagingAccountsTable {
  id: Generated<string>;
  tenant_id: string;
  phone_number_id: string;
  display_phone_number: string | null;
  name: string | null;
  /** When the tenant proved it controls the identifier; only a proven claim is routed. */
  proven_at: Timestamp | null;
  /** Names the claim in its verification URL (0017). */
  proof_token: Generated<string>;
  created_at: DefaultedTimestamp;
}

export interface ChatConversationsTable {
  id: Generated<string>;
  tenant_id: string;
  channel: Generated<string>;
  messaging_account_id: string | null;
  /** The other party's id on the channel (e.g. the messaging wa_id). */
  external_id: string;
  contact_name: string | null;
  last_message_at: Timestamp | null;
  created_at: DefaultedTimestamp;
}

/** What a conversation has beyond the channel's view of it: one row per conversation (0009). */
export interface ChatConversationDetailsTable {
  conversation_id: string;
  tenant_id: string;
  subject: string | null;
  status: 'open' | 'pending' | 'closed' | null;
  started_at: Timestamp | null;
  /** The contact whose email or phone the conversation named, when one matched. */
  contact_id: string | null;
  /** Lower-cased. */
  contact_email: string | null;
  contact_phone: string | null;
  updated_at: DefaultedTimestamp;
}

export interface ChatMessagesTable {
  id: Generated<string>;
  tenant_id: string;
  conversation_id: string;
  external_id: string;
  direction: 'inbound' | 'outbound';
  message_type: string | null;
  body: string | null;
  status: string | null;
  sent_at: Timestamp | null;
  payload: JsonWrite;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface TelephonyNumbersTable {
  id: Generated<string>;
  tenant_id: string;
  /** E.164, e.g. +14155550100. */
  phone_number: string;
  name: string | null;
  /** When the tenant proved it controls the identifier; only a proven claim is routed. */
  proven_at: Timestamp | null;
  /** Names the claim in its verification URL (0017). */
  proof_token: Generated<string>;
  created_at: DefaultedTimestamp;
}

export interface CallLogsTable {
  id: Generated<string>;
  tenant_id: string;
  number_id: string | null;
  call_id: string;
  direction: string | null;
  from_number: string | null;
  to_number: string | null;
  status: string;
  duration_seconds: number | null;
  payload: JsonWrite;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface StorefrontConnectionsTable {
  id: Generated<string>;
  tenant_id: string;
  platform: 'storefront_a' | 'storefront_b';
  /** A: the shop domain; B: the webhook source URL. */
  shop_identifier: string;
  name: string | null;
  /** AES-256-GCM ciphertext of the webhook secret; never returned. */
  webhook_secret_ciphertext: string | null;
  /** When a delivery verified with this connection's own secret first arrived (0017). */
  proven_at: Timestamp | null;
  created_at: DefaultedTimestamp;
}

export interface CommerceOrdersTable {
  id: Generated<string>;
  tenant_id: string;
  connection_id: string;
  external_order_id: string;
  order_number: string | null;
  email: string | null;
  contact_id: string | null;
  total: Money;
  currency: string | null;
  status: string | null;
  payload: JsonWrite;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export type PaymentProvider = 'stripe' | 'razorpay' | 'paddle' | 'lemonsqueezy';

export interface PaymentConnectionsTable {
  id: Generated<string>;
  tenant_id: string;
  provider: PaymentProvider;
  name: string | null;
  /** AES-256-GCM ciphertext of the webhook secret; never returned. */
  webhook_secret_ciphertext: string;
  created_at: DefaultedTimestamp;
}

export interface PaymentEventsTable {
  id: Generated<string>;
  tenant_id: string;
  connection_id: string;
  provider: PaymentProvider;
  external_event_id: string;
  /** The provider's id of the payment or refund; unique per (tenant, provider, kind) (0008). */
  provider_object_id: string | null;
  kind: 'payment.succeeded' | 'payment.failed' | 'payment.refunded';
  amount: Money;
  currency: string | null;
  email: string | null;
  contact_id: string | null;
  payload: JsonWrite;
  created_at: DefaultedTimestamp;
}

export interface BillingSubscriptionsTable {
  id: Generated<string>;
  tenant_id: string;
  provider_customer_id: string | null;
  provider_subscription_id: string;
  plan: string | null;
  status: string;
  current_period_end: Timestamp | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface MigrateNoncesTable {
  nonce: string;
  seen_at: Generated<Date>;
}

export interface MigrationRecordsTable {
  tenant_id: string;
  source_system: string;
  entity: string;
  external_id: string;
  record_id: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface McpKeysTable {
  id: Generated<string>;
  tenant_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scopes: string[];
  created_by: string | null;
  created_at: Generated<Date>;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** An OAuth client of the MCP server: registered (RFC 7591) or a metadata document's copy. */
export interface OAuthClientsTable {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  source: 'registration' | 'metadata_document';
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Generated<Date>;
  fetched_at: DefaultedTimestamp;
}

/** An authorize call waiting for consent on the console page. */
export interface OAuthAuthorizationRequestsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  scopes: string[];
  state: string | null;
  code_challenge: string;
  resource: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}

/** What a user approved for one client in one tenant. */
export interface OAuthGrantsTable {
  id: Generated<string>;
  tenant_id: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  user_id: string | null;
  scopes: string[];
  resource: string;
  created_at: Generated<Date>;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** An authorization code (its SHA-256), used once. */
export interface OAuthCodesTable {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  used_at: Date | null;
}

/** An access or refresh token (its SHA-256); a refresh token is used once. */
export interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: 'access' | 'refresh';
  /** What the token allows: a refresh token, its grant's scopes; an access token, those asked for. */
  scopes: string[];
  created_at: Generated<Date>;
  expires_at: Timestamp;
  used_at: Date | null;
}

/** automation: a workflow (trigger + ordered nodes); the signing secret is sealed (AES-GCM). */
export interface AutomationWorkflowsTable {
  id: Generated<string>;
  tenant_id: string;
  name: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  trigger_event: string;
  trigger_conditions: ColumnType<unknown, string | undefined, string>;
  nodes: ColumnType<unknown, string, string>;
  signing_secret_sealed: string;
  created_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** One run of a workflow, unique per (workflow_id, event_id); test runs have no event. */
export interface WorkflowRunsTable {
  id: Generated<string>;
  tenant_id: string;
  workflow_id: string;
  event_id: string | null;
  event_type: string;
  module: string;
  record_id: string;
  is_test: ColumnType<boolean, boolean | undefined, boolean>;
  status: ColumnType<'running' | 'success' | 'failed', 'running' | undefined, 'success' | 'failed'>;
  started_at: DefaultedTimestamp;
  finished_at: Timestamp | null;
  /** The first run of the chain this run replays (migration 0028); null for a first run. */
  replay_of: string | null;
  /** The member who asked for the replay. */
  replayed_by: string | null;
  /** The record's fields and the event as the run saw them (null before migration 0028). */
  context: ColumnType<unknown, string | null | undefined, string | null>;
}

/** One row per node of a run, in node order. */
export interface WorkflowRunStepsTable {
  run_id: string;
  position: number;
  tenant_id: string;
  node_type: string;
  node_name: string | null;
  status: 'success' | 'failed';
  message: string;
  response_status: number | null;
  duration_ms: number;
  finished_at: DefaultedTimestamp;
}

export interface ActivitiesTable {
  id: Generated<string>;
  tenant_id: string;
  type: string;
  subject: string | null;
  body: string | null;
  occurred_at: DefaultedTimestamp;
  lead_id: string | null;
  contact_id: string | null;
  deal_id: string | null;
  custom_fields: Json;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}
