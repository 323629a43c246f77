import { sql, type Kysely } from 'kysely';
import { enableTenantRls } from './tenant-rls';

export const ACTIVITY_TYPES = ['call', 'email', 'meeting', 'note', 'task'] as const;

/**
 * Activities: what happened with a lead, contact or deal (a call, an email, a meeting, a note, a
 * task), one of the resources the endpoint browser lists (specified). Written by migrations (the
 * history a previous CRM holds); read through GET /api/crm/activities.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const types = sql.raw(ACTIVITY_TYPES.map((t) => `'${t}'`).join(', '));
  await sql`CREATE TABLE crm_activities (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    type text NOT NULL CHECK (type IN (${types})),
    subject text CHECK (length(subject) <= 300),
    body text,
    occurred_at timestamptz NOT NULL DEFAULT now(),
    lead_id uuid REFERENCES crm_leads(id) ON DELETE SET NULL,
    contact_id uuid REFERENCES crm_contacts(id) ON DELETE SET NULL,
    deal_id uuid REFERENCES crm_deals(id) ON DELETE SET NULL,
    custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX crm_activities_by_occurred ON crm_activities (tenant_id, occurred_at DESC, id)`.execute(
    db,
  );
  await enableTenantRls(db, 'crm_activities');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS crm_activities`.execute(db);
}
