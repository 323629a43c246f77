import { MIGRATION_ENTITIES } from '@crm/shared/db';
import { z } from 'zod';

/** Longest source system name; with MAX_EXTERNAL_ID it keeps a namespaced contact id under 200. */
export const MAX_SOURCE_SYSTEM = 40;
export const MAX_EXTERNAL_ID = 150;
export const SOURCE_SYSTEM_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/;

/**
 * POST /api/migrate/ingest (our design; the specification leaves the body open): which tenant
 * (its id or its slug), which source system and record type, and the records, each carrying the
 * source's own `external_id`. Record fields are checked one by one (a refused record is an
 * `{ index, error }` of the answer, the others are stored); this schema checks only the envelope.
 */
export function ingestBodySchema(maxRecords: number) {
  return z.object({
    tenant: z
      .string({ error: 'tenant must be the tenant id or slug' })
      .trim()
      .min(1, { error: 'tenant must be the tenant id or slug' })
      .max(100, { error: 'tenant must be the tenant id or slug' }),
    source_system: z
      .string({ error: `source_system must be a name such as hubspot` })
      .trim()
      .toLowerCase()
      .min(1, { error: 'source_system must be a name such as hubspot' })
      .max(MAX_SOURCE_SYSTEM, {
        error: `source_system must be at most ${MAX_SOURCE_SYSTEM} characters`,
      })
      .regex(SOURCE_SYSTEM_PATTERN, {
        error: 'source_system may contain a-z, 0-9, ".", "_" and "-" (e.g. hubspot)',
      }),
    entity: z.enum(MIGRATION_ENTITIES, {
      error: `entity must be one of: ${MIGRATION_ENTITIES.join(', ')}`,
    }),
    records: z
      .array(z.unknown(), { error: 'records must be an array of records' })
      .min(1, { error: 'records must hold at least one record' })
      .max(maxRecords, { error: `records may hold at most ${maxRecords} records per request` }),
  });
}

export type IngestBody = z.infer<ReturnType<typeof ingestBodySchema>>;
export type MigrationEntity = (typeof MIGRATION_ENTITIES)[number];

/** Every record's source id: what makes a re-run update instead of duplicate. */
export const externalIdSchema = z
  .string({ error: `external_id is required (the record's id in the source system)` })
  .trim()
  .min(1, { error: `external_id is required (the record's id in the source system)` })
  .max(MAX_EXTERNAL_ID, { error: `external_id must be at most ${MAX_EXTERNAL_ID} characters` });

/** The answer: per-record errors beside the counts. */
export const ingestResponseSchema = z.object({
  success: z.literal(true),
  entity: z.enum(MIGRATION_ENTITIES),
  received: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  errors: z.array(z.object({ index: z.number().int(), error: z.string() })),
});

export type IngestResponse = z.infer<typeof ingestResponseSchema>;
