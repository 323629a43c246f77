import { port, positiveInt, serviceEnv } from '@crm/shared/config';
import { retentionVariables } from '@crm/shared/retention';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  MIGRATE_PORT: port(4005).describe('Listening port.'),
  SVC_MIGRATE_SIGNING_SECRET: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Shared secret of HMAC-signed migration calls (docs/migrate.md). Unset: every ingest is ' +
        'refused with 401 `missing_signing_secret`, and the service still starts.',
    ),
  MIGRATE_MAX_RECORDS: positiveInt(5_000).describe(
    'Most records one signed ingest request may carry; more is a 400.',
  ),
  MIGRATE_BODY_LIMIT_BYTES: positiveInt(16 * 1024 * 1024).describe(
    'Body limit of the migration ingest route, sized for MIGRATE_MAX_RECORDS records (16 MiB).',
  ),
  ...retentionVariables('migrateNonces'),
});

export type Config = z.infer<typeof configSchema>;
