import { port, positiveInt, serviceEnv } from '@crm/shared/config';
import { retentionVariables } from '@crm/shared/retention';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  CRM_API_PORT: port(4001).describe('Listening port.'),
  IMPORT_MAX_ROWS: positiveInt(10_000).describe(
    'Most leads one `POST /api/v1/import/leads` may carry; more is a 400.',
  ),
  IMPORT_BODY_LIMIT_BYTES: positiveInt(16 * 1024 * 1024).describe(
    'Body limit of the lead import route, sized for IMPORT_MAX_ROWS leads (16 MiB).',
  ),
  EXPORT_MAX_CONCURRENT: positiveInt(4).describe(
    'Exports streaming at once per crm-api process; more get 503 with `Retry-After`. Each holds ' +
      'a database connection until its download ends, so this stays below DB_POOL_MAX.',
  ),
  ...retentionVariables('publishedEvents'),
});

export type Config = z.infer<typeof configSchema>;
