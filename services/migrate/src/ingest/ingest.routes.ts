import { withTenant, type Database } from '@crm/shared/db';
import { assertNoHostileInput, errors, rawBody, requestLogger, validate } from '@crm/shared/http';
import { parseJsonBody, rawBytes } from '@crm/shared/inbound';
import { Router, type Request, type Response } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { recordNonce } from '../nonces/nonces.repository';
import { rejection } from '../signature/rejection';
import { verifySignedRequest } from '../signature/verify-signed-request';
import { findTenantId } from '../tenancy/cross-tenant-lookups';
import type { ChunkOutcome, SourceRecord } from './writer-contract';
import { ENTITY_WRITERS } from './entity-writers';
import { externalIdSchema, ingestBodySchema, type IngestResponse } from './ingest.schema';
import { recordMappings } from './migration-records.repository';
import type { RecordError } from '@crm/records';

/** The public path a migration tool signs, whatever the gateway forwards internally. */
export const MIGRATE_INGEST_PATH = '/api/migrate/ingest';

export interface IngestRouteOptions {
  db: Kysely<Database>;
  logger: Logger;
  secret: string | undefined;
  maxRecords: number;
  bodyLimitBytes: number;
}

/**
 * The body as parsed: not JSON is 400 `INVALID_JSON`, and U+0000, lone surrogates and deep
 * nesting are refused (400 naming the path) rather than made storable as a receiver's are.
 */
const jsonBodyOptions = {
  invalidJson: (message: string) => errors.invalidJson(message),
  refuseUnstorable: (parsed: unknown) => assertNoHostileInput(parsed, 'request body'),
};

/** Each record must be an object with the source's `external_id`; the rest are its fields. */
function splitRecords(records: unknown[]): { valid: SourceRecord[]; errors: RecordError[] } {
  const valid: SourceRecord[] = [];
  const refused: RecordError[] = [];
  records.forEach((record, index) => {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      refused.push({ index, error: 'A record must be a JSON object' });
      return;
    }
    const { external_id, ...fields } = record as Record<string, unknown>;
    const id = externalIdSchema.safeParse(external_id);
    if (!id.success) {
      refused.push({ index, error: id.error.issues[0].message });
      return;
    }
    valid.push({ index, external_id: id.data, fields });
  });
  return { valid, errors: refused };
}

/**
 * POST /api/migrate/ingest (specified: HMAC-signed; docs/migrate.md). In order: the raw
 * bytes are verified (secret, timestamp, signature: 401 with the reason, nothing written),
 * the nonce is recorded durably (401 `replay` when used before, 401 `nonce_store_error` when
 * it cannot be recorded: fails closed), then the body is parsed and checked (400), the tenant
 * resolved (404), and the records upserted in one tenant transaction with their mappings and
 * outbox events. 200 `{ success, entity, received, created, updated, failed, errors }`.
 */
export function ingestRoutes(options: IngestRouteOptions): Router {
  const { db, logger } = options;
  const bodySchema = ingestBodySchema(options.maxRecords);
  const router = Router();
  router.post(
    MIGRATE_INGEST_PATH,
    rawBody(options.bodyLimitBytes),
    async (req: Request, res: Response) => {
      const body = rawBytes(req);
      const check = verifySignedRequest(
        { method: req.method, path: MIGRATE_INGEST_PATH, headers: req.headers, body },
        options.secret,
        Date.now(),
      );
      if (!check.ok) throw rejection(check.reason);
      let fresh: boolean;
      try {
        fresh = await recordNonce(db, check.nonce);
      } catch (err) {
        requestLogger(logger, req).error(
          { err },
          'migrate could not record a nonce; request refused',
        );
        throw rejection('nonce_store_error');
      }
      // Nonces too old to be replayed are swept by migrate's retention worker.
      if (!fresh) throw rejection('replay');

      const parsed = parseJsonBody(body, jsonBodyOptions);
      const input = validate(bodySchema, parsed, 'request body');
      const write = ENTITY_WRITERS[input.entity];
      const tenantId = await findTenantId(db, input.tenant);
      if (!tenantId) throw errors.notFound(`No tenant "${input.tenant}"`);

      const split = splitRecords(input.records);
      const outcome: ChunkOutcome =
        split.valid.length === 0
          ? { stored: [], errors: [] }
          : await withTenant(db, tenantId, async (trx) => {
              const ctx = { trx, tenantId, sourceSystem: input.source_system };
              const written = await write(ctx, split.valid);
              await recordMappings(
                trx,
                tenantId,
                input.source_system,
                input.entity,
                written.stored,
              );
              return written;
            });
      const created = outcome.stored.filter((r) => r.created).length;
      const failures = [...split.errors, ...outcome.errors].sort((a, b) => a.index - b.index);
      const answer: IngestResponse = {
        success: true,
        entity: input.entity,
        received: input.records.length,
        created,
        updated: outcome.stored.length - created,
        failed: failures.length,
        errors: failures,
      };
      res.json(answer);
    },
  );
  return router;
}
