import { port, RESEALED_AT_START, rotatableKeyPair, serviceEnv } from '@crm/shared/config';
import { retentionVariables } from '@crm/shared/retention';
import { z } from 'zod';

const secret = z.string().min(1).optional();
const emailSecret = z
  .string()
  .regex(/^(whsec_)?[A-Za-z0-9+/]{16,}={0,2}$/, {
    message: 'expected whsec_ followed by a base64 key of at least 12 bytes',
  })
  .optional();

/** A provider secret's previous value, set while the provider rotates it. */
const previous = <S extends z.ZodType>(variable: string, schema: S) =>
  schema.describe(
    `During a rotation at the provider only: the previous ${variable}. Deliveries signed with ` +
      'either verify, so the switch at the provider and the rollout here need not coincide.',
  );

/**
 * webhook-ingest's settings. Every provider secret is optional: a receiver whose secret is
 * unset answers as docs/webhooks.md says (billing and network refuse; messaging skips
 * verification with a warning), so the service starts with any subset of providers configured.
 */
export const configSchema = serviceEnv
  .extend({
    WEBHOOK_INGEST_PORT: port(4002).describe('Listening port.'),
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/, message: 'expected an http(s) URL' })
      .default('http://localhost:8080')
      .transform((value) => value.replace(/\/+$/, ''))
      .describe(
        "The address providers call (the gateway's): telephony signatures cover " +
          '`<PUBLIC_BASE_URL><path>`.',
      ),
    BILLING_WEBHOOK_SECRET: secret.describe(
      'Billing receiver signing secret (`billing-signature`, Stripe scheme). ' +
        'Unset: the receiver answers 503.',
    ),
    EMAIL_WEBHOOK_SECRET: emailSecret.describe(
      'Email receiver secret, `whsec_<base64 key>` (Standard Webhooks / Svix scheme); a bare ' +
        '`whsec_` or a malformed key fails start-up. Unset: the receiver answers 503.',
    ),
    NETWORK_WEBHOOK_SECRET: secret.describe(
      'Network receiver HMAC key (`x-network-signature`). Unset: the receiver answers 503.',
    ),
    MESSAGING_APP_SECRET: secret.describe(
      'Messaging app secret (`x-hub-signature-256`). Unset: verification is skipped with a ' +
        'warning, a development fallback only.',
    ),
    MESSAGING_WEBHOOK_VERIFY_TOKEN: secret.describe(
      'Token the messaging GET handshake must present. Unset: the handshake answers 403.',
    ),
    TELEPHONY_AUTH_TOKEN: secret.describe(
      'Telephony auth token (`X-Telephony-Signature`, Twilio scheme). ' +
        'Unset: the receiver answers 503.',
    ),
    BILLING_WEBHOOK_SECRET_PREVIOUS: previous('BILLING_WEBHOOK_SECRET', secret),
    EMAIL_WEBHOOK_SECRET_PREVIOUS: previous('EMAIL_WEBHOOK_SECRET', emailSecret),
    NETWORK_WEBHOOK_SECRET_PREVIOUS: previous('NETWORK_WEBHOOK_SECRET', secret),
    MESSAGING_APP_SECRET_PREVIOUS: previous('MESSAGING_APP_SECRET', secret),
    TELEPHONY_AUTH_TOKEN_PREVIOUS: previous('TELEPHONY_AUTH_TOKEN', secret),
    ...rotatableKeyPair('CONNECTION_SECRETS_KEY', {
      current:
        '32+ characters; encrypts stored storefront and payment webhook secrets (AES-256-GCM). ' +
        'Unset: derived from INTERNAL_TOKEN_SECRET; set it in production so rotating that token ' +
        'does not make stored secrets unreadable.',
      previous: RESEALED_AT_START,
    }),
    ...retentionVariables('ledgerPayloads', 'ledgerRows', 'providerEvents'),
  })
  .superRefine((config, ctx) => {
    // The row carries the dedup key: removed before its payload, the key would go with it early.
    if (config.RETENTION_LEDGER_DAYS < config.RETENTION_LEDGER_PAYLOADS_DAYS) {
      ctx.addIssue({
        code: 'custom',
        path: ['RETENTION_LEDGER_DAYS'],
        message:
          'expected at least RETENTION_LEDGER_PAYLOADS_DAYS (a ledger row outlives its payload)',
      });
    }
  });

export type Config = z.infer<typeof configSchema>;
