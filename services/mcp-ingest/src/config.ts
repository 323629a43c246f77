import { port, serviceEnv } from '@crm/shared/config';

export const configSchema = serviceEnv.extend({
  MCP_INGEST_PORT: port(4004),
});

export type Config = ReturnType<typeof configSchema.parse>;
