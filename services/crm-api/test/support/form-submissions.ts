import { withSystemScope, type Db } from '@crm/shared/db';
import { outboxEvents, tenantSession } from '@crm/test-kit';
import type { Stack } from './stack';

export type FormTenant = Awaited<ReturnType<typeof tenantSession>> & { slug: string };

/** An owner's session in a new tenant, with the tenant's slug (the public form URL's first part). */
export async function formTenant(stack: Stack, database: Db): Promise<FormTenant> {
  const session = await tenantSession(stack, database, 'owner');
  const { slug } = await withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('tenants')
      .select('slug')
      .where('id', '=', session.tenantId)
      .executeTakeFirstOrThrow(),
  );
  return { ...session, slug };
}

/** Everything a submission could write for a tenant: leads, submissions and outbox events. */
export async function submissionRowsOf(database: Db, tenantId: string) {
  const rows = await withSystemScope(database.db, async (trx) => ({
    leads: await trx
      .selectFrom('crm_leads')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    submissions: await trx
      .selectFrom('crm_form_submissions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  }));
  return { ...rows, events: await outboxEvents(database, tenantId) };
}
