/**
 * crm-api's cross-tenant lookups: what it must know before a tenant is
 * known. Each runs in the system scope and returns only what it resolves; nothing else in
 * crm-api reads outside a tenant scope.
 */
import { withSystemScope, type Database } from '@crm/shared/db';
import type { Kysely } from 'kysely';
import { formFieldsSchema, SLUG_PATTERN, type FormField } from './forms.schema';

export interface PublicForm {
  tenantId: string;
  formId: string;
  fields: FormField[];
}

/**
 * Public form submission: form slug -> tenant. The tenant (by its slug) and its *enabled*
 * form (by the form's slug), or undefined when either is unknown or the form is disabled;
 * the caller answers all three the same way.
 */
export async function findEnabledFormBySlugs(
  db: Kysely<Database>,
  tenantSlug: string,
  formSlug: string,
): Promise<PublicForm | undefined> {
  // Neither column can hold anything else, so such a slug needs no round trip.
  if (!SLUG_PATTERN.test(tenantSlug) || !SLUG_PATTERN.test(formSlug)) return undefined;
  const row = await withSystemScope(db, (trx) =>
    trx
      .selectFrom('crm_web_forms')
      .innerJoin('tenants', 'tenants.id', 'crm_web_forms.tenant_id')
      .select(['crm_web_forms.tenant_id as tenantId', 'crm_web_forms.id as formId', 'fields'])
      .where('tenants.slug', '=', tenantSlug)
      .where('crm_web_forms.slug', '=', formSlug)
      .where('crm_web_forms.enabled', '=', true)
      .executeTakeFirst(),
  );
  if (!row) return undefined;
  return { tenantId: row.tenantId, formId: row.formId, fields: formFieldsSchema.parse(row.fields) };
}
