import { port, positiveInt, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  MCP_INGEST_PORT: port(4004).describe('Listening port.'),
  MCP_BODY_LIMIT_BYTES: positiveInt(8 * 1024 * 1024).describe(
    'Body limit of `POST /api/mcp`, sized for 1,000 records per request (8 MiB).',
  ),
  MCP_MAX_RECORDS_PER_REQUEST: positiveInt(1000).describe(
    'Records per `POST /api/mcp`, summed over every `tools/call` in it (a batch included): the ' +
      'per-call maximum, so a batch stores no more than one full call would. Over it: 413, ' +
      'nothing written.',
  ),
});

export type Config = z.infer<typeof configSchema>;
