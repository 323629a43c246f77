import { sql, type Kysely } from 'kysely';
import { enableTenantRls } from './tenant-rls';

/**
 * crm-api's records: leads (crm_leads, the specified table), import jobs (import_jobs), contacts (a
 * minimal table so deals can point at one; their API comes later), deals, web forms and their
 * submissions. Every table is tenant-owned under row-level security.
 */
export const LEAD_STATUSES = [
  'new',
  'contacted',
  'qualified',
  'unqualified',
  'converted',
  'lost',
] as const;
export const DEAL_STAGES = ['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost'] as const;

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE crm_leads (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    email text NOT NULL CHECK (email = lower(email) AND length(email) <= 320),
    first_name text,
    last_name text,
    phone text,
    status text NOT NULL DEFAULT 'new' CHECK (status IN (${list(LEAD_STATUSES)})),
    source text NOT NULL DEFAULT 'api_import',
    custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, email)
  )`.execute(db);
  await sql`CREATE INDEX crm_leads_by_created ON crm_leads (tenant_id, created_at DESC, id)`.execute(
    db,
  );
  await sql`CREATE INDEX crm_leads_by_status ON crm_leads (tenant_id, status)`.execute(db);
  await sql`CREATE INDEX crm_leads_by_source ON crm_leads (tenant_id, source)`.execute(db);
  await enableTenantRls(db, 'crm_leads');

  await sql`CREATE TABLE import_jobs (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id uuid REFERENCES users(id) ON DELETE SET NULL,
    kind text NOT NULL DEFAULT 'leads',
    status text NOT NULL CHECK (status IN ('completed', 'failed')),
    total integer NOT NULL,
    imported integer NOT NULL,
    failed integer NOT NULL,
    started_at timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    duration_ms integer NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX import_jobs_by_tenant ON import_jobs (tenant_id, started_at DESC)`.execute(
    db,
  );
  await enableTenantRls(db, 'import_jobs');

  await sql`CREATE TABLE crm_contacts (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    email text CHECK (email = lower(email)),
    first_name text,
    last_name text,
    phone text,
    custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX crm_contacts_email ON crm_contacts (tenant_id, email) WHERE email IS NOT NULL`.execute(
    db,
  );
  await enableTenantRls(db, 'crm_contacts');

  await sql`CREATE TABLE crm_deals (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    title text NOT NULL CHECK (length(title) BETWEEN 1 AND 300),
    value numeric(16, 2) NOT NULL DEFAULT 0 CHECK (value >= 0),
    currency char(3) NOT NULL DEFAULT 'USD',
    stage text NOT NULL DEFAULT 'lead' CHECK (stage IN (${list(DEAL_STAGES)})),
    assigned_to uuid REFERENCES users(id) ON DELETE SET NULL,
    lead_id uuid REFERENCES crm_leads(id) ON DELETE SET NULL,
    contact_id uuid REFERENCES crm_contacts(id) ON DELETE SET NULL,
    expected_close_date date,
    custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_by uuid REFERENCES users(id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX crm_deals_by_created ON crm_deals (tenant_id, created_at DESC, id)`.execute(
    db,
  );
  await sql`CREATE INDEX crm_deals_by_stage ON crm_deals (tenant_id, stage)`.execute(db);
  await sql`CREATE INDEX crm_deals_by_assignee ON crm_deals (tenant_id, assigned_to)`.execute(db);
  await enableTenantRls(db, 'crm_deals');

  await sql`CREATE TABLE crm_web_forms (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    slug text NOT NULL CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 63),
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    fields jsonb NOT NULL DEFAULT '[]'::jsonb,
    enabled boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, slug)
  )`.execute(db);
  await enableTenantRls(db, 'crm_web_forms');

  await sql`CREATE TABLE crm_form_submissions (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    form_id uuid NOT NULL REFERENCES crm_web_forms(id) ON DELETE CASCADE,
    lead_id uuid REFERENCES crm_leads(id) ON DELETE SET NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX crm_form_submissions_by_form ON crm_form_submissions (tenant_id, form_id, created_at DESC)`.execute(
    db,
  );
  await enableTenantRls(db, 'crm_form_submissions');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS crm_form_submissions, crm_web_forms, crm_deals, crm_contacts, import_jobs, crm_leads`.execute(
    db,
  );
}
