import { port, positiveInt, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  MCP_INGEST_PORT: port(4004).describe('Listening port.'),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL' })
    .default('http://localhost:8080')
    .transform((value) => value.replace(/\/+$/, ''))
    .describe(
      "The address agents reach the gateway at (the gateway's): the MCP server's OAuth resource " +
        'identifier is `<PUBLIC_BASE_URL>/api/mcp`, and an access token is accepted only when ' +
        'it was issued for that resource.',
    ),
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
