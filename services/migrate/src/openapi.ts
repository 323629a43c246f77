import { addOperation, type OpenAPIRegistry } from '@crm/shared/openapi';
import { ingestBodySchema, ingestResponseSchema } from './ingest/ingest.schema';

/*
 * migrate's operations, from the schemas its route validates with (build-time only: the
 * generator in scripts/openapi imports this; the service never does).
 */

export function registerOperations(registry: OpenAPIRegistry): void {
  addOperation(registry, {
    method: 'post',
    path: '/api/migrate/ingest',
    tag: 'Migration',
    summary: 'Push records from another system (HMAC-signed; upserted by their source ids)',
    description:
      'Signed over the raw bytes (docs/migrate.md): 401 with `error` = `missing_signing_secret`, ' +
      '`timestamp_out_of_range`, `bad_signature`, `replay` or `nonce_store_error` before anything ' +
      'is parsed or written. Records are upserted by (tenant, source_system, entity, ' +
      'external_id); a refused record is `{ index, error }` and the others are stored.',
    auth: 'serviceHmac',
    body: {
      schema: ingestBodySchema(5000),
      example: {
        tenant: 'acme',
        source_system: 'hubspot',
        entity: 'leads',
        records: [{ external_id: '101', email: 'ann@example.com', first_name: 'Ann' }],
      },
    },
    success: {
      description: 'Processed; per-record outcomes in created / updated / failed / errors',
      bare: ingestResponseSchema,
      example: {
        success: true,
        entity: 'leads',
        received: 1,
        created: 1,
        updated: 0,
        failed: 0,
        errors: [],
      },
    },
    errors: [400, 404, 413],
  });
}
