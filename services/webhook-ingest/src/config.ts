import { port, serviceEnv } from '@crm/shared/config';

export const configSchema = serviceEnv.extend({
  WEBHOOK_INGEST_PORT: port(4002),
});

export type Config = ReturnType<typeof configSchema.parse>;
