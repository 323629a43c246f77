import { isSpanContextValid, trace } from '@opentelemetry/api';
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
  'x-api-key',
  'webhookSecret',
  'client_secret',
  'clientSecret',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
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

// Node lowercases incoming headers, but header objects we build for outbound calls (and log
// when they fail) are usually spelled `Authorization`, `X-Hub-Signature-256`: redaction is
// by exact key, so each name is listed in both spellings.
const titleCase = (name: string) =>
  name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('-');

const SECRET_KEYS = [...new Set(SECRET_FIELDS.flatMap((f) => [f, titleCase(f)]))];

export const REDACT_PATHS = [
  ...SECRET_KEYS.map((f) => `req.headers["${f}"]`),
  ...SECRET_KEYS.map((f) => `res.headers["${f}"]`),
  ...SECRET_KEYS.map((f) => `["${f}"]`),
  ...SECRET_KEYS.map((f) => `*["${f}"]`),
  ...SECRET_KEYS.map((f) => `*.*["${f}"]`),
];

export interface LoggerOptions {
  name: string;
  level?: string;
  /** For tests: write somewhere other than stdout. */
  destination?: pino.DestinationStream;
}

/** `trace_id` and `span_id` of the active span, so a log line can be found from its trace. */
function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan()?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

export function createLogger({ name, level = 'info', destination }: LoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: traceFields,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing, for tests that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
