import {
  port,
  positiveInt,
  RESEALED_AT_START,
  rotatableKeyPair,
  serviceEnv,
} from '@crm/shared/config';
import { retentionVariables } from '@crm/shared/retention';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  AUTOMATION_PORT: port(4003).describe('Listening port.'),
  OUTBOUND_TIMEOUT_MS: positiveInt(10_000).describe(
    'Time limit of one outbound webhook request (connect to last byte), in ms; past it the ' +
      'step fails (`→ error: timed out after ...`).',
  ),
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: z
    .enum(['true', 'false'], { message: 'expected true or false' })
    .default('false')
    .transform((v) => v === 'true')
    .describe(
      '`true` lets webhook nodes save and reach loopback, private, link-local and other ' +
        'non-public addresses: development and tests only. Off by default (the SSRF guard): ' +
        'such targets are refused.',
    ),
  AUTOMATION_MAX_CONCURRENT: positiveInt(32).describe(
    'Workflow runs executing at once per automation process, over all tenants.',
  ),
  AUTOMATION_MAX_CONCURRENT_PER_TENANT: positiveInt(4).describe(
    "Workflow runs of one tenant executing at once, so one tenant's slow receiver cannot take " +
      'every slot.',
  ),
  ...rotatableKeyPair('AUTOMATION_SECRETS_KEY', {
    current:
      '32+ characters; encrypts stored workflow signing secrets (AES-256-GCM). Unset: derived ' +
      'from INTERNAL_TOKEN_SECRET; set it in production so rotating that token keeps the ' +
      'secrets readable.',
    previous: RESEALED_AT_START,
  }),
  ...retentionVariables('workflowRuns'),
});

export type Config = z.infer<typeof configSchema>;
