import { z } from 'zod';

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
 * `serviceEnv.extend({ CRM_API_PORT: port(4001) })`.
 */
export const serviceEnv = z.object({
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'expected one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  /** Unset: the embedded default (npm start). A service started alone requires it. */
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  DB_POOL_MAX: positiveInt(10),
  /** Unset: the in-process bus (npm start). A service started alone requires it. */
  NATS_URL: url(['nats:', 'tls:', 'ws:', 'wss:']).optional(),
  /** Copies of the event stream in a NATS cluster: 1 for a single server, 3 on deploy/k8s's. */
  NATS_STREAM_REPLICAS: positiveInt(1),
  /** HMAC key of the gateway -> service identity header; shared by the gateway and services. */
  INTERNAL_TOKEN_SECRET: z
    .string()
    .min(32, { message: 'must be at least 32 characters' })
    .optional(),
  /**
   * The previous INTERNAL_TOKEN_SECRET while it is being rotated: services accept identity
   * headers signed with either (the gateway signs with the current one).
   */
  INTERNAL_TOKEN_SECRET_PREVIOUS: z
    .string()
    .min(32, { message: 'must be at least 32 characters' })
    .optional(),
  /** Largest request body a service parses, in bytes. */
  BODY_LIMIT_BYTES: positiveInt(1_048_576),
  SHUTDOWN_TIMEOUT_MS: positiveInt(10_000),
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:']).optional(),
  APP_VERSION: z.string().optional(),
});

export type ServiceEnv = z.infer<typeof serviceEnv>;
