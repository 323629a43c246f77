import { port, positiveInt, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  MCP_INGEST_PORT: port(4004),
  /** Body limit of POST /api/mcp, sized for 1,000 records per tool call (8 MiB). */
  MCP_BODY_LIMIT_BYTES: positiveInt(8 * 1024 * 1024),
});

export type Config = z.infer<typeof configSchema>;
