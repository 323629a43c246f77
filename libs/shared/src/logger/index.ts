import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

// Any header or field whose name says it carries a credential is replaced before a log line is
// written. Paths cover the shapes we log: request headers (pino-http), and objects passed as
// the first argument of a log call one or two levels deep.
const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'password_hash',
  'secret',
  'token',
  'apiKey',
  'api_key',
  'signature',
  'x-crm-identity',
  'x-svc-signature',
  'x-hub-signature-256',
  'x-network-signature',
  'billing-signature',
  'email-webhook-signature',
  'x-telephony-signature',
  'x-storefront-a-hmac-sha256',
  'x-storefront-b-webhook-signature',
];

export const REDACT_PATHS = [
  ...SECRET_FIELDS.map((f) => `req.headers["${f}"]`),
  ...SECRET_FIELDS.map((f) => `res.headers["${f}"]`),
  ...SECRET_FIELDS.map((f) => `["${f}"]`),
  ...SECRET_FIELDS.map((f) => `*["${f}"]`),
  ...SECRET_FIELDS.map((f) => `*.*["${f}"]`),
];

export interface LoggerOptions {
  name: string;
  level?: string;
  /** For tests: write somewhere other than stdout. */
  destination?: pino.DestinationStream;
}

export function createLogger({ name, level = 'info', destination }: LoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing, for tests that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
