import { port, positiveInt, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const configSchema = serviceEnv.extend({
  AUTOMATION_PORT: port(4003),
  /** Time limit of one outbound webhook request (connect to last byte), in ms. */
  OUTBOUND_TIMEOUT_MS: positiveInt(10_000),
  /**
   * `true` lets webhook nodes reach loopback, private, link-local and other non-public
   * addresses (development and tests). Off by default: such targets are refused at connect time.
   */
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: z
    .enum(['true', 'false'], { message: 'expected true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  /** Workflow runs executing at once in this process, over all tenants. */
  AUTOMATION_MAX_CONCURRENT: positiveInt(32),
  /** Workflow runs of one tenant executing at once, so one tenant's slow receiver cannot take every slot. */
  AUTOMATION_MAX_CONCURRENT_PER_TENANT: positiveInt(4),
  /**
   * Key that encrypts stored workflow signing secrets. Unset: derived from
   * INTERNAL_TOKEN_SECRET; set it in production so rotating that token keeps secrets readable.
   */
  AUTOMATION_SECRETS_KEY: z
    .string()
    .min(32, { message: 'must be at least 32 characters' })
    .optional(),
  /**
   * The previous AUTOMATION_SECRETS_KEY while it is being rotated: stored secrets sealed under
   * it still open, and the service re-seals them under the current key in the background.
   */
  AUTOMATION_SECRETS_KEY_PREVIOUS: z
    .string()
    .min(32, { message: 'must be at least 32 characters' })
    .optional(),
});

export type Config = z.infer<typeof configSchema>;
