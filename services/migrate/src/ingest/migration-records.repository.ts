import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';

export interface MappedRecord {
  external_id: string;
  record_id: string;
}

/**
 * Remembers which platform record each source record became, in one statement for the whole
 * chunk: new source ids are inserted, known ones point at the record they landed in now. A
 * source id sent twice in one chunk keeps its last record (as a re-send would).
 */
export async function recordMappings(
  trx: Trx,
  tenantId: string,
  sourceSystem: string,
  entity: string,
  mapped: readonly MappedRecord[],
): Promise<void> {
  const last = new Map(mapped.map((m) => [m.external_id, m.record_id]));
  if (last.size === 0) return;
  await sql`INSERT INTO migration_records (tenant_id, source_system, entity, external_id, record_id)
    SELECT ${tenantId}::uuid, ${sourceSystem}, ${entity}, m.external_id, m.record_id
    FROM unnest(${[...last.keys()]}::text[], ${[...last.values()]}::uuid[]) AS m(external_id, record_id)
    ON CONFLICT (tenant_id, source_system, entity, external_id)
    DO UPDATE SET record_id = excluded.record_id, updated_at = now()`.execute(trx);
}

/** The platform record a source record became, or undefined (for tests and support tools). */
export async function findMapping(
  trx: Trx,
  tenantId: string,
  key: { sourceSystem: string; entity: string; externalId: string },
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('migration_records')
    .select('record_id')
    .where('tenant_id', '=', tenantId)
    .where('source_system', '=', key.sourceSystem)
    .where('entity', '=', key.entity)
    .where('external_id', '=', key.externalId)
    .executeTakeFirst();
  return row?.record_id;
}

/** The platform records that source ids of one entity became, in one query. */
export async function findMappedIds(
  trx: Trx,
  tenantId: string,
  sourceSystem: string,
  entity: string,
  externalIds: readonly string[],
): Promise<Map<string, string>> {
  if (externalIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom('migration_records')
    .select(['external_id', 'record_id'])
    .where('tenant_id', '=', tenantId)
    .where('source_system', '=', sourceSystem)
    .where('entity', '=', entity)
    .where('external_id', '=', sql<string>`any(${[...new Set(externalIds)]}::text[])`)
    .execute();
  return new Map(rows.map((r) => [r.external_id, r.record_id]));
}

/**
 * Which source id of one system and entity each of these platform records was migrated as, in
 * one query (by the index migration_records_by_record). A record mapped under several ids (leads
 * that met by email before leads followed their source id) answers one of them.
 */
export async function findSourceIdsOf(
  trx: Trx,
  tenantId: string,
  sourceSystem: string,
  entity: string,
  recordIds: readonly string[],
): Promise<Map<string, string>> {
  if (recordIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom('migration_records')
    .select(['record_id', 'external_id'])
    .where('tenant_id', '=', tenantId)
    .where('source_system', '=', sourceSystem)
    .where('entity', '=', entity)
    .where('record_id', '=', sql<string>`any(${[...new Set(recordIds)]}::uuid[])`)
    .orderBy('external_id')
    .execute();
  const byRecord = new Map<string, string>();
  for (const row of rows)
    if (!byRecord.has(row.record_id)) byRecord.set(row.record_id, row.external_id);
  return byRecord;
}

/**
 * Runs `fn` inside a savepoint of the caller's transaction and, when it throws an error
 * `retryable` accepts (another transaction won a race for the same rows), rolls back to the
 * savepoint and runs it again, at most `attempts` times in all; any other error propagates.
 */
export async function retryInSavepoint<T>(
  trx: Trx,
  attempts: number,
  retryable: (err: unknown) => boolean,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await sql`SAVEPOINT migrate_write`.execute(trx);
    try {
      const result = await fn();
      await sql`RELEASE SAVEPOINT migrate_write`.execute(trx);
      return result;
    } catch (err) {
      if (attempt >= attempts || !retryable(err)) throw err;
      await sql`ROLLBACK TO SAVEPOINT migrate_write`.execute(trx);
    }
  }
}
