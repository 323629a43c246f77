import { z } from 'zod';
import { ConfigError, loadConfig, port, serviceEnv } from '@crm/shared/config';

const crmApiEnv = serviceEnv.extend({ X_PORT: port(4001) });

/** The ConfigError loadConfig throws for `env`; fails the test when it does not throw one. */
function configErrorFor(env: NodeJS.ProcessEnv, schema: z.ZodType = crmApiEnv): ConfigError {
  try {
    loadConfig('crm-api', schema, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('loadConfig did not throw');
}

const RETENTION_SWEEP_DEFAULTS = {
  RETENTION_SWEEP_EVERY_MS: 300_000,
  RETENTION_BATCH_SIZE: 1000,
  RETENTION_BATCH_PAUSE_MS: 200,
  RETENTION_BEHIND_AFTER_MINUTES: 60,
};

describe('loadConfig(serviceEnv.extend(...))', () => {
  it('fills every default from an empty environment', () => {
    expect(loadConfig('crm-api', crmApiEnv, {})).toEqual({
      HOST: '0.0.0.0',
      LOG_LEVEL: 'info',
      DB_POOL_MAX: 10,
      NATS_STREAM_REPLICAS: 1,
      BODY_LIMIT_BYTES: 1_048_576,
      SHUTDOWN_TIMEOUT_MS: 10_000,
      ...RETENTION_SWEEP_DEFAULTS,
      X_PORT: 4001,
    });
  });

  it('reads and coerces the values that are given', () => {
    const config = loadConfig('crm-api', crmApiEnv, {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      DATABASE_URL: 'postgresql://crm:pw@localhost:5432/crm',
      DB_POOL_MAX: '3',
      NATS_URL: 'nats://localhost:4222',
      INTERNAL_TOKEN_SECRET: 'x'.repeat(32),
      BODY_LIMIT_BYTES: '2048',
      X_PORT: '8080',
      APP_VERSION: '1.2.3',
      UNRELATED: 'ignored',
    });
    expect(config).toEqual({
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      DATABASE_URL: 'postgresql://crm:pw@localhost:5432/crm',
      DB_POOL_MAX: 3,
      NATS_URL: 'nats://localhost:4222',
      NATS_STREAM_REPLICAS: 1,
      INTERNAL_TOKEN_SECRET: 'x'.repeat(32),
      BODY_LIMIT_BYTES: 2048,
      SHUTDOWN_TIMEOUT_MS: 10_000,
      ...RETENTION_SWEEP_DEFAULTS,
      X_PORT: 8080,
      APP_VERSION: '1.2.3',
    });
  });

  it('treats an empty string as unset, so the default applies', () => {
    const config = loadConfig('crm-api', crmApiEnv, {
      X_PORT: '',
      LOG_LEVEL: '',
      DATABASE_URL: '',
      INTERNAL_TOKEN_SECRET: '',
    });
    expect(config.X_PORT).toBe(4001);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.INTERNAL_TOKEN_SECRET).toBeUndefined();
  });

  it('reads process.env when no environment is passed', () => {
    const previous = process.env.X_PORT;
    process.env.X_PORT = '4555';
    try {
      expect(loadConfig('crm-api', crmApiEnv).X_PORT).toBe(4555);
    } finally {
      if (previous === undefined) delete process.env.X_PORT;
      else process.env.X_PORT = previous;
    }
  });

  it.each(['abc', '0', '65536', '-1', '80.5'])(
    'rejects port %j with a ConfigError naming the variable and the value',
    (value) => {
      const err = configErrorFor(
        { CRM_API_PORT: value },
        serviceEnv.extend({ CRM_API_PORT: port(4001) }),
      );
      expect(err.name).toBe('ConfigError');
      expect(err.service).toBe('crm-api');
      expect(err.problems).toEqual([
        `CRM_API_PORT: expected a port (1-65535) (got ${JSON.stringify(value)})`,
      ]);
      expect(err.message).toBe(
        `Invalid configuration for crm-api:\n  - CRM_API_PORT: expected a port (1-65535) (got ${JSON.stringify(value)})`,
      );
    },
  );

  it('never echoes a secret: INTERNAL_TOKEN_SECRET too short is named, its value is not', () => {
    const secret = 'short-but-secret-value';
    const err = configErrorFor({ INTERNAL_TOKEN_SECRET: secret });
    expect(err.problems).toEqual([
      'INTERNAL_TOKEN_SECRET: must be at least 32 characters (got "[redacted]")',
    ]);
    expect(err.message).toContain('INTERNAL_TOKEN_SECRET');
    expect(err.message).not.toContain(secret);
    expect(JSON.stringify(err)).not.toContain(secret);
  });

  it('names DATABASE_URL when its protocol is not postgres', () => {
    const err = configErrorFor({ DATABASE_URL: 'mysql://db.internal:3306/crm' });
    expect(err.problems).toEqual([
      'DATABASE_URL: expected a URL (postgres: or postgresql:) (got "mysql://db.internal:3306/crm")',
    ]);
  });

  it('names DATABASE_URL with a bad protocol without echoing the password inside it', () => {
    const err = configErrorFor({ DATABASE_URL: 'mysql://admin:hunter2@db.internal/crm' });
    expect(err.problems).toEqual([
      'DATABASE_URL: expected a URL (postgres: or postgresql:) (got "mysql://[redacted]@db.internal/crm")',
    ]);
    expect(err.message).not.toContain('hunter2');
    expect(err.message).not.toContain('admin');
  });

  it('does not echo credentials of a URL that does not even parse', () => {
    const err = configErrorFor({ DATABASE_URL: 'postgres//admin:p@ss@db.internal/crm' });
    expect(err.problems).toEqual([
      'DATABASE_URL: expected a URL (postgres: or postgresql:) (got "[redacted]@db.internal/crm")',
    ]);
    expect(err.message).not.toContain('p@ss');
  });

  it('lists every problem at once, each naming its variable', () => {
    const err = configErrorFor({
      X_PORT: 'http',
      LOG_LEVEL: 'loud',
      DB_POOL_MAX: '0',
      NATS_URL: 'http://localhost:4222',
    });
    expect(err.problems).toHaveLength(4);
    expect(err.problems).toEqual(
      expect.arrayContaining([
        'X_PORT: expected a port (1-65535) (got "http")',
        'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent (got "loud")',
        'DB_POOL_MAX: expected a positive whole number (got "0")',
        'NATS_URL: expected a URL (nats: or tls: or ws: or wss:) (got "http://localhost:4222")',
      ]),
    );
  });

  it('says "it is not set" for a required variable that is missing or empty', () => {
    const schema = serviceEnv.extend({ REQUIRED_THING: z.string() });
    for (const env of [{}, { REQUIRED_THING: '' }]) {
      const err = configErrorFor(env, schema);
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(/^REQUIRED_THING: .+ \(it is not set\)$/);
    }
  });
});
