import type { Database, Trx } from '@crm/shared/db';
import {
  listCursorBinding,
  paginate,
  paginateByKeyset,
  type CursorBinding,
  type CursorPageQuery,
  type PageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Kysely } from 'kysely';
import type { FormChange, FormInput, FormListFilters } from './forms.schema';

type Db = Kysely<Database> | Trx;

const FORM_COLUMNS = [
  'id',
  'slug',
  'name',
  'fields',
  'enabled',
  'created_at',
  'updated_at',
] as const;
/**
 * What the form list may be sorted by, each NOT NULL and on an index: created_at, updated_at
 * and name on `(tenant_id, <key>, id)` (migration 0023), slug on the unique
 * `(tenant_id, slug)`, which needs no tie-break.
 */
const FORM_SORT_KEYS = {
  created_at: { expression: sql`crm_web_forms.created_at`, type: 'timestamptz' },
  updated_at: { expression: sql`crm_web_forms.updated_at`, type: 'timestamptz' },
  name: { expression: sql`crm_web_forms.name`, type: 'text' },
  slug: { expression: sql`crm_web_forms.slug`, type: 'text' },
} satisfies Record<string, SortKey>;
export const FORM_SORTABLE = [
  'created_at',
  'updated_at',
  'name',
  'slug',
] as const satisfies ReadonlyArray<keyof typeof FORM_SORT_KEYS>;
/** A form's submissions by when they arrived (crm_form_submissions_by_form). */
export const SUBMISSION_SORTABLE = ['created_at'] as const;

/** The form stored, or undefined when the tenant already has one with this slug. */
export function insertForm(db: Db, tenantId: string, input: FormInput) {
  return db
    .insertInto('crm_web_forms')
    .values({
      tenant_id: tenantId,
      slug: input.slug,
      name: input.name,
      fields: JSON.stringify(input.fields),
      enabled: input.enabled,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'slug']).doNothing())
    .returning([...FORM_COLUMNS])
    .executeTakeFirst();
}

/** A page of the tenant's forms, by page or by cursor (the shared keyset helper). */
export function listForms(
  db: Db,
  tenantId: string,
  page: CursorPageQuery<(typeof FORM_SORTABLE)[number]>,
  filters: FormListFilters,
  binding: Pick<CursorBinding, 'secret'>,
) {
  let query = db
    .selectFrom('crm_web_forms')
    .select([...FORM_COLUMNS])
    .where('crm_web_forms.tenant_id', '=', tenantId);
  if (filters.enabled !== undefined) query = query.where('enabled', '=', filters.enabled);
  return paginateByKeyset(db, query, page, {
    sortKeys: FORM_SORT_KEYS,
    tiebreak: 'crm_web_forms.id',
    binding: listCursorBinding(binding.secret, 'crm_web_forms', tenantId, { ...filters }),
    filtered: filters.enabled !== undefined,
  });
}

export function findForm(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom('crm_web_forms')
    .select([...FORM_COLUMNS])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The form as changed, or undefined when there is none with this id. */
export function updateForm(db: Db, tenantId: string, id: string, change: FormChange) {
  const { fields, ...rest } = change;
  return db
    .updateTable('crm_web_forms')
    .set({
      ...rest,
      ...(fields !== undefined && { fields: JSON.stringify(fields) }),
      updated_at: sql`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning([...FORM_COLUMNS])
    .executeTakeFirst();
}

/**
 * A page of one form's submissions: what was submitted (`payload`, without the honeypot) and
 * the lead it was filed under (null once that lead is deleted).
 */
export function listSubmissions(
  db: Db,
  tenantId: string,
  formId: string,
  page: PageQuery<(typeof SUBMISSION_SORTABLE)[number]>,
) {
  const query = db
    .selectFrom('crm_form_submissions')
    .select(['id', 'form_id', 'lead_id', 'payload', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('form_id', '=', formId);
  return paginate(query, page, 'id');
}

/**
 * Records one submission of a form with every value submitted (`payload`); the id of the row.
 * That id is the public answer to an anonymous submitter, so it keeps the table's random
 * default (gen_random_uuid()): it tells nothing about the lead or when it was created.
 */
export async function insertSubmission(
  trx: Trx,
  submission: { tenantId: string; formId: string; leadId: string; payload: unknown },
): Promise<string> {
  const row = await trx
    .insertInto('crm_form_submissions')
    .values({
      tenant_id: submission.tenantId,
      form_id: submission.formId,
      lead_id: submission.leadId,
      payload: JSON.stringify(submission.payload),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
