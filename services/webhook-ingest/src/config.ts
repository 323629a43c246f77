import { port, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

const secret = z.string().min(1).optional();
const emailSecret = z
  .string()
  .regex(/^(whsec_)?[A-Za-z0-9+/]{16,}={0,2}$/, {
    message: 'expected whsec_ followed by a base64 key of at least 12 bytes',
  })
  .optional();

/**
 * webhook-ingest's settings. Every provider secret is optional: a receiver whose secret is
 * unset answers as specified (billing and network refuse; messaging skips verification
 * with a warning), so the service starts with any subset of providers configured.
 */
export const configSchema = serviceEnv.extend({
  WEBHOOK_INGEST_PORT: port(4002),
  /** The address providers call (the gateway's): telephony signs the full public URL. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL' })
    .default('http://localhost:8080')
    .transform((value) => value.replace(/\/+$/, '')),
  BILLING_WEBHOOK_SECRET: secret,
  /** Standard Webhooks / Svix secret, `whsec_<base64>` (a bare `whsec_` would be an empty key). */
  EMAIL_WEBHOOK_SECRET: emailSecret,
  NETWORK_WEBHOOK_SECRET: secret,
  MESSAGING_APP_SECRET: secret,
  MESSAGING_WEBHOOK_VERIFY_TOKEN: secret,
  TELEPHONY_AUTH_TOKEN: secret,
  /*
   * A provider secret's previous value while the provider rotates it: deliveries signed with
   * either verify, so the switch at the provider and the rollout here need not coincide.
   */
  BILLING_WEBHOOK_SECRET_PREVIOUS: secret,
  EMAIL_WEBHOOK_SECRET_PREVIOUS: emailSecret,
  NETWORK_WEBHOOK_SECRET_PREVIOUS: secret,
  MESSAGING_APP_SECRET_PREVIOUS: secret,
  TELEPHONY_AUTH_TOKEN_PREVIOUS: secret,
  /**
   * Key that encrypts stored connection secrets (storefront and payment webhook secrets).
   * Unset: derived from INTERNAL_TOKEN_SECRET; set it in production so rotating that token
   * does not make stored secrets unreadable.
   */
  CONNECTION_SECRETS_KEY: z
    .string()
    .min(32, { message: 'must be at least 32 characters' })
    .optional(),
  /**
   * The previous CONNECTION_SECRETS_KEY while it is being rotated: stored secrets sealed under
   * it still open, and the service re-seals them under the current key in the background.
   */
  CONNECTION_SECRETS_KEY_PREVIOUS: z
    .string()
    .min(32, { message: 'must be at least 32 characters' })
    .optional(),
});

export type Config = z.infer<typeof configSchema>;
