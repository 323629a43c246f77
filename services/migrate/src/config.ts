import { port, positiveInt, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  MIGRATE_PORT: port(4005),
  /**
   * The shared secret of signed migration calls (specified: SVC_MIGRATE_SIGNING_SECRET). Unset:
   * every ingest is refused with `missing_signing_secret`, and the service still starts.
   */
  SVC_MIGRATE_SIGNING_SECRET: z.string().min(1).optional(),
  /** Most records one signed request may carry; more is a 400. */
  MIGRATE_MAX_RECORDS: positiveInt(5_000),
  /** Body limit of the ingest route, sized for MIGRATE_MAX_RECORDS records (16 MiB). */
  MIGRATE_BODY_LIMIT_BYTES: positiveInt(16 * 1024 * 1024),
});

export type Config = z.infer<typeof configSchema>;
