import type { Trx } from '@crm/shared/db';
import { writeEvents, type EventInput } from '@crm/shared/events';
import type { RecordError } from '@crm/records';
import { z } from 'zod';
import type { ChunkOutcome, SourceRecord, StoredRecord, WriteContext } from './writer-contract';
import { MAX_EXTERNAL_ID } from './ingest.schema';
import { findMappedIds } from './migration-records.repository';

/** A reference to a record migrated from the same source before, by its source id. */
export interface SourceReference {
  /** The field of a migrated record, e.g. `lead_external_id`. */
  field: string;
  /** The entity it points at, e.g. `leads`. */
  entity: string;
  /** The column it fills, e.g. `lead_id`. */
  column: string;
}

export const sourceRef = (field: string) =>
  z
    .string({ error: `${field} must be the source id of a record migrated before` })
    .trim()
    .min(1)
    .max(MAX_EXTERNAL_ID)
    .optional();

/** How one record type without a natural key is written by its source-id mapping. */
export interface MappedEntity<Row, Stored extends { id: string }> {
  entity: string;
  /** The record's fields, references included (as `<entity>_external_id` fields). */
  schema: z.ZodType<Record<string, unknown>>;
  references: readonly SourceReference[];
  update(trx: Trx, tenantId: string, rows: Array<{ id: string; row: Row }>): Promise<Stored[]>;
  /** Returns the new records in input order. */
  insert(trx: Trx, tenantId: string, rows: Row[]): Promise<Stored[]>;
  createdEvent(tenantId: string, record: Stored): EventInput;
  updatedEvent(tenantId: string, record: Stored): EventInput;
}

/**
 * Writes records that have no natural key (deals, activities): the mapping is the key. A source
 * id migrated before overwrites its record (one UPDATE for the chunk), a new one inserts (one
 * INSERT for the chunk), a mapped record deleted since is created again; references to records
 * migrated from the same source are resolved through the mapping (one query per entity), an
 * unknown one is that record's error; the events go out in one outbox write. A source id twice
 * in a chunk keeps its last record.
 */
export async function writeByMapping<Row, Stored extends { id: string }>(
  spec: MappedEntity<Row, Stored>,
  { trx, tenantId, sourceSystem }: WriteContext,
  records: SourceRecord[],
): Promise<ChunkOutcome> {
  const errors: RecordError[] = [];
  const byExternalId = new Map<string, { record: SourceRecord; fields: Record<string, unknown> }>();
  for (const record of records) {
    const parsed = spec.schema.safeParse(record.fields);
    if (!parsed.success)
      errors.push({ index: record.index, error: parsed.error.issues[0].message });
    else byExternalId.set(record.external_id, { record, fields: parsed.data });
  }
  const parsed = [...byExternalId.values()];
  const [existing, ...targets] = await Promise.all([
    findMappedIds(trx, tenantId, sourceSystem, spec.entity, [...byExternalId.keys()]),
    ...spec.references.map((ref) =>
      findMappedIds(
        trx,
        tenantId,
        sourceSystem,
        ref.entity,
        parsed.flatMap((p) =>
          typeof p.fields[ref.field] === 'string' ? [p.fields[ref.field] as string] : [],
        ),
      ),
    ),
  ]);

  const ready: Array<{ record: SourceRecord; row: Row }> = [];
  for (const { record, fields } of parsed) {
    const row: Record<string, unknown> = { ...fields };
    const missing = spec.references.find((ref, i) => {
      const sourceId = fields[ref.field] as string | undefined;
      delete row[ref.field];
      row[ref.column] = sourceId ? targets[i].get(sourceId) : null;
      return row[ref.column] === undefined;
    });
    if (missing) {
      errors.push({
        index: record.index,
        error: `${missing.field} "${String(fields[missing.field])}" was not migrated from ${sourceSystem}`,
      });
    } else {
      ready.push({ record, row: row as Row });
    }
  }

  const known = ready.filter((r) => existing.has(r.record.external_id));
  const updated = await spec.update(
    trx,
    tenantId,
    known.map((r) => ({ id: existing.get(r.record.external_id) as string, row: r.row })),
  );
  const stillThere = new Set(updated.map((d) => d.id));
  const fresh = ready.filter((r) => !stillThere.has(existing.get(r.record.external_id) ?? ''));
  const inserted = await spec.insert(
    trx,
    tenantId,
    fresh.map((r) => r.row),
  );
  await writeEvents(trx, [
    ...inserted.map((d) => spec.createdEvent(tenantId, d)),
    ...updated.map((d) => spec.updatedEvent(tenantId, d)),
  ]);

  const stored: StoredRecord[] = [
    ...fresh.map((r, i) => ({
      index: r.record.index,
      external_id: r.record.external_id,
      record_id: inserted[i].id,
      created: true,
    })),
    ...known
      .filter((r) => stillThere.has(existing.get(r.record.external_id) as string))
      .map((r) => ({
        index: r.record.index,
        external_id: r.record.external_id,
        record_id: existing.get(r.record.external_id) as string,
        created: false,
      })),
  ];
  return { stored, errors };
}
