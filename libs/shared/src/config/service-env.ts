import { z } from 'zod';
import { rotatableKeyPair } from './key-pair';

/** A TCP port given as a string in the environment. */
export const port = (fallback: number) =>
  z.coerce
    .number({ message: 'expected a port (1-65535)' })
    .int({ message: 'expected a port (1-65535)' })
    .min(1, { message: 'expected a port (1-65535)' })
    .max(65535, { message: 'expected a port (1-65535)' })
    .default(fallback);

/** A whole number above zero given as a string in the environment. */
export const positiveInt = (fallback: number) =>
  z.coerce
    .number({ message: 'expected a positive whole number' })
    .int({ message: 'expected a positive whole number' })
    .positive({ message: 'expected a positive whole number' })
    .default(fallback);

const url = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: `expected a URL (${protocols.join(' or ')})` },
  );

/**
 * What every service reads. A service extends this with its own port and settings:
 * `serviceEnv.extend({ CRM_API_PORT: port(4001).describe('...') })`. Every variable carries its
 * description (`.describe()`): `npm run docs:config` writes docs/configuration.md from them.
 */
export const serviceEnv = z.object({
  HOST: z
    .string()
    .default('0.0.0.0')
    .describe('Listening address. Under `npm start` only the gateway uses it (see BACKEND_HOST).'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'expected one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info')
    .describe('`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.'),
  DATABASE_URL: url(['postgres:', 'postgresql:'])
    .optional()
    .describe(
      'Postgres connection. Unset: the embedded Postgres under `npm start`; ' +
        'a service started alone requires it.',
    ),
  DB_POOL_MAX: positiveInt(10).describe('Postgres connections per service process.'),
  NATS_URL: url(['nats:', 'tls:', 'ws:', 'wss:'])
    .optional()
    .describe(
      'NATS JetStream server. Unset: the in-process event bus under `npm start`; ' +
        'a service started alone requires it.',
    ),
  NATS_STREAM_REPLICAS: positiveInt(1).describe(
    'Copies of the event stream in a NATS cluster: 1 for a single server, ' +
      '3 on the 3-node cluster of deploy/k8s.',
  ),
  ...rotatableKeyPair('INTERNAL_TOKEN_SECRET', {
    current:
      'HMAC key of the gateway -> service identity header, 32+ characters, the same in every ' +
      'service. Unset: random per run under `npm start`; a service started alone requires it.',
    previous:
      'Services accept identity headers signed with either; the gateway signs with the current ' +
      'one (docs/operations.md).',
  }),
  BODY_LIMIT_BYTES: positiveInt(1_048_576).describe(
    'Largest request body a service parses, in bytes; a larger one gets 413.',
  ),
  SHUTDOWN_TIMEOUT_MS: positiveInt(10_000).describe(
    'How long in-flight requests and event handlers may finish after SIGINT/SIGTERM, in ms.',
  ),
  RETENTION_SWEEP_EVERY_MS: positiveInt(5 * 60_000).describe(
    'How often a service sweeps the tables it owns of rows past their retention, in ms ' +
      '(docs/retention.md).',
  ),
  RETENTION_BATCH_SIZE: positiveInt(1000).describe(
    'Rows a retention sweep removes per statement (each its own short transaction).',
  ),
  RETENTION_BATCH_PAUSE_MS: z.coerce
    .number({ message: 'expected a whole number of ms' })
    .int({ message: 'expected a whole number of ms' })
    .min(0, { message: 'expected a whole number of ms' })
    .default(200)
    .describe(
      'Pause between two batches of a retention sweep, in ms, so the hot paths keep the ' +
        'database while a backlog is worked off.',
    ),
  RETENTION_BEHIND_AFTER_MINUTES: positiveInt(60).describe(
    'Grace before health reports retention `behind`: the oldest row a policy removes is ' +
      'older than its period by more than this.',
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:'])
    .optional()
    .describe(
      'OTLP/HTTP collector base URL; traces go to `<url>/v1/traces`. ' +
        'Unset: tracing is off and its SDK is not loaded.',
    ),
  APP_VERSION: z
    .string()
    .optional()
    .describe("The `version` the health probe reports. Unset: the service's package version."),
});

export type ServiceEnv = z.infer<typeof serviceEnv>;
