/**
 * migrate's one cross-tenant lookup: the tenant a signed migration names,
 * by id or slug. It runs in the system scope and returns only the id; every write after it
 * runs inside withTenant.
 */
import { withSystemScope, type Database } from '@crm/shared/db';
import type { Kysely } from 'kysely';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findTenantId(
  db: Kysely<Database>,
  idOrSlug: string,
): Promise<string | undefined> {
  const row = await withSystemScope(db, (trx) =>
    trx
      .selectFrom('tenants')
      .select('id')
      .where((eb) =>
        UUID.test(idOrSlug)
          ? eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)])
          : eb('slug', '=', idOrSlug),
      )
      .executeTakeFirst(),
  );
  return row?.id;
}
