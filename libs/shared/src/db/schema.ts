import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { Role } from '../identity/identity-token';

/**
 * The typed shape of the database, one interface per table. Later issues add their tables
 * here together with the migration that creates them.
 */
export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  tenant_users: TenantUsersTable;
  sessions: SessionsTable;
  event_outbox: EventOutboxTable;
  rate_limits: RateLimitsTable;
  crm_leads: LeadsTable;
  import_jobs: ImportJobsTable;
  crm_contacts: ContactsTable;
  crm_deals: DealsTable;
  crm_web_forms: WebFormsTable;
  crm_form_submissions: FormSubmissionsTable;
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

export const MEMBERSHIP_STATUSES = ['active', 'invited', 'disabled'] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];

export interface TenantUsersTable {
  tenant_id: string;
  user_id: string;
  role: Role;
  status: MembershipStatus;
  joined_at: DefaultedTimestamp;
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
  /** The event id, also the JetStream message id. */
  id: string;
  tenant_id: string;
  type: string;
  envelope: ColumnType<unknown, string, string>;
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
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  custom_fields: Json;
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
