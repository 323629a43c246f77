import type { Database, Trx } from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';
import type { DealChange, DealInput } from './deals.schema';

type Db = Kysely<Database> | Trx;

/** A deal as the API shows it. */
export const DEAL_COLUMNS = [
  'id',
  'title',
  'value',
  'currency',
  'stage',
  'assigned_to',
  'lead_id',
  'contact_id',
  'expected_close_date',
  'custom_fields',
  'created_by',
  'created_at',
  'updated_at',
] as const;

function jsonFields<T extends { custom_fields?: Record<string, unknown> }>(input: T) {
  const { custom_fields, ...rest } = input;
  return {
    ...rest,
    ...(custom_fields !== undefined && { custom_fields: JSON.stringify(custom_fields) }),
  };
}

/** Under RLS another tenant's ids look absent, so these say "inside this tenant". */
export async function leadExists(db: Db, tenantId: string, leadId: string): Promise<boolean> {
  const lead = await db
    .selectFrom('crm_leads')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', leadId)
    .executeTakeFirst();
  return lead !== undefined;
}

export async function contactExists(db: Db, tenantId: string, contactId: string): Promise<boolean> {
  const contact = await db
    .selectFrom('crm_contacts')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', contactId)
    .executeTakeFirst();
  return contact !== undefined;
}

export async function insertDeal(db: Db, tenantId: string, userId: string, input: DealInput) {
  return db
    .insertInto('crm_deals')
    .values({ ...jsonFields(input), tenant_id: tenantId, created_by: userId })
    .returning([...DEAL_COLUMNS])
    .executeTakeFirstOrThrow();
}

export async function findDeal(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom('crm_deals')
    .select([...DEAL_COLUMNS])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The deal's stage, its row locked until the transaction ends (a change compares against it). */
export async function lockDealStage(trx: Trx, tenantId: string, id: string) {
  return trx
    .selectFrom('crm_deals')
    .select(['stage'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateDeal(db: Db, tenantId: string, id: string, change: DealChange) {
  return db
    .updateTable('crm_deals')
    .set({ ...jsonFields(change), updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning([...DEAL_COLUMNS])
    .executeTakeFirstOrThrow();
}

/** True when a row was deleted. */
export async function deleteDeal(db: Db, tenantId: string, id: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('crm_deals')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return deleted !== undefined;
}
