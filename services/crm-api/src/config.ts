import { port, positiveInt, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  CRM_API_PORT: port(4001),
  /** Most leads one POST /api/v1/import/leads may carry; more is a 400. */
  IMPORT_MAX_ROWS: positiveInt(10_000),
  /** Body limit of the import route, sized for IMPORT_MAX_ROWS leads (16 MiB). */
  IMPORT_BODY_LIMIT_BYTES: positiveInt(16 * 1024 * 1024),
  /**
   * Exports streaming at once in this process; each holds a database connection until its
   * download ends, so this stays below DB_POOL_MAX. More -> 503 with Retry-After.
   */
  EXPORT_MAX_CONCURRENT: positiveInt(4),
});

export type Config = z.infer<typeof configSchema>;
