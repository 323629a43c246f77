import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { loadConfig } from '../../libs/shared/src/config';
import { services } from '../dev/services';

/*
 * docker-compose.yml, checked without Docker (this machine has no daemon; CI neither): the
 * file is read as `docker compose config` reads it (YAML with merge keys, ${VAR:-default}
 * interpolated from an empty environment), validated against the Compose Specification's JSON
 * schema (fixtures/compose-spec.json, compose-spec/compose-spec, Apache-2.0), then held to what
 * the stack needs: the start order (Postgres and NATS healthy -> the migration exits 0 -> the
 * backends ready -> the gateway), every service's port and environment as its config reads
 * them, NATS JetStream on a volume, and traces going service -> collector -> Jaeger.
 */
const ROOT = join(__dirname, '..', '..');

/** Compose interpolation: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `$$` for `$`. */
function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(
      /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g,
      (match, name: string | undefined, op: string | undefined, fallback: string | undefined) => {
        if (match === '$$') return '$';
        const set = name !== undefined ? env[name] : undefined;
        if (op === ':-') return set ? set : (fallback ?? '');
        if (op === '-') return set ?? fallback ?? '';
        return set ?? '';
      },
    );
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  }
  return value;
}

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
  restart?: string;
}

const raw = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const compose = interpolate(parse(raw, { merge: true }), {}) as {
  name: string;
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};
const BACKENDS = ['crm-api', 'webhook-ingest', 'automation', 'mcp-ingest', 'migrate'];
const APP_SERVICES = ['gateway', ...BACKENDS];

/** The port each service listens on by its own config's default (libs/shared/src/config). */
const DEFAULT_PORT: Record<string, number> = Object.fromEntries(
  services.map((s) => [s.name, s.port(s.configSchema.parse({}) as never)]),
);
const PORT_VARIABLE: Record<string, string> = {
  gateway: 'GATEWAY_PORT',
  'crm-api': 'CRM_API_PORT',
  'webhook-ingest': 'WEBHOOK_INGEST_PORT',
  automation: 'AUTOMATION_PORT',
  'mcp-ingest': 'MCP_INGEST_PORT',
  migrate: 'MIGRATE_PORT',
};

function seconds(duration: string): number {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`unreadable duration ${duration}`);
  const n = Number(match[1]);
  return match[2] === 'ms' ? n / 1000 : match[2] === 'm' ? n * 60 : n;
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema', () => {
    // Draft-07, ajv's default; its `$schema` spelling (no trailing #) is not one ajv knows.
    const { $schema: _draft, ...schema } = JSON.parse(
      readFileSync(join(__dirname, 'fixtures', 'compose-spec.json'), 'utf8'),
    ) as Record<string, unknown>;
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs Postgres, NATS, the collector, Jaeger, the migration and the six services', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['postgres', 'nats', 'otel-collector', 'jaeger', 'migrate-db', ...APP_SERVICES].sort(),
    );
    // What each depends_on names exists.
    for (const [name, service] of Object.entries(compose.services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        expect({ name, dependency, exists: dependency in compose.services }).toEqual({
          name,
          dependency,
          exists: true,
        });
      }
    }
  });

  it('keeps NATS JetStream on a named volume, and Postgres too', () => {
    const nats = compose.services.nats;
    const conf = readFileSync(join(ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8');
    const storeDir = /jetstream\s*\{[^}]*store_dir:\s*"([^"]+)"/s.exec(conf)?.[1];
    expect(storeDir).toBe('/data');
    expect(nats.volumes).toContain('nats-data:/data');
    expect(nats.command).toEqual(['--config', '/etc/nats/nats.conf']);
    expect(nats.healthcheck?.test?.join(' ')).toContain('/healthz');
    expect(compose.services.postgres.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes).sort()).toEqual(['nats-data', 'postgres-data']);
  });

  it('starts in order: Postgres healthy -> migration exits 0 -> backends ready -> gateway', () => {
    const migrate = compose.services['migrate-db'];
    expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(migrate.command).toEqual(['node', '/app/libs/shared/dist/db/migrate-cli.js']);
    expect(migrate.restart).toBe('no');
    expect(migrate.healthcheck).toEqual({ disable: true });
    expect(compose.services.postgres.healthcheck?.test).toEqual(
      expect.arrayContaining(['pg_isready']),
    );
    for (const name of APP_SERVICES) {
      const dependsOn = compose.services[name].depends_on ?? {};
      expect({ name, migration: dependsOn['migrate-db'], nats: dependsOn.nats }).toEqual({
        name,
        migration: { condition: 'service_completed_successfully' },
        nats: { condition: 'service_healthy' },
      });
    }
    const gateway = compose.services.gateway.depends_on ?? {};
    for (const backend of BACKENDS) {
      expect({ backend, condition: gateway[backend]?.condition }).toEqual({
        backend,
        condition: 'service_healthy',
      });
    }
    // No backend waits for the gateway (that would be a cycle).
    for (const backend of BACKENDS) {
      expect(Object.keys(compose.services[backend].depends_on ?? {})).not.toContain('gateway');
    }
  });

  it.each(APP_SERVICES)(
    '%s: built with SERVICE, its port, its readiness healthcheck and the stack environment',
    (name) => {
      const service = compose.services[name];
      const env = service.environment ?? {};
      expect(service.build).toMatchObject({
        context: '.',
        dockerfile: 'deploy/Dockerfile',
        args: { SERVICE: name },
      });
      expect(env[PORT_VARIABLE[name]]).toBe(String(DEFAULT_PORT[name]));
      expect(service.healthcheck?.test).toEqual(['CMD', 'node', '/app/healthcheck.js', '/ready']);
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/postgres:[^@]+@postgres:5432\/crm$/);
      expect(env.NATS_URL).toBe('nats://nats:4222');
      expect(env.INTERNAL_TOKEN_SECRET?.length).toBeGreaterThanOrEqual(32);
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
      // Every variable given is one the service's config reads.
      const definition = services.find((s) => s.name === name)!;
      const reads = Object.keys((definition.configSchema as unknown as { shape: object }).shape);
      expect(Object.keys(env).filter((variable) => !reads.includes(variable))).toEqual([]);
      // The whole config parses from it (as the service does at start-up).
      expect(() => loadConfig(name, definition.configSchema, env)).not.toThrow();
      // Time to drain before SIGKILL: more than SHUTDOWN_TIMEOUT_MS.
      expect(seconds(service.stop_grace_period ?? '10s') * 1000).toBeGreaterThan(
        Number(env.SHUTDOWN_TIMEOUT_MS),
      );
      // Only the gateway is published.
      expect(service.ports ?? []).toEqual(name === 'gateway' ? ['8080:8080'] : []);
    },
  );

  it("the gateway's upstream URLs are the backends' compose names and ports", () => {
    const env = compose.services.gateway.environment ?? {};
    expect({
      CRM_API_URL: env.CRM_API_URL,
      WEBHOOK_INGEST_URL: env.WEBHOOK_INGEST_URL,
      AUTOMATION_URL: env.AUTOMATION_URL,
      MCP_INGEST_URL: env.MCP_INGEST_URL,
      MIGRATE_URL: env.MIGRATE_URL,
    }).toEqual({
      CRM_API_URL: `http://crm-api:${compose.services['crm-api'].environment?.CRM_API_PORT}`,
      WEBHOOK_INGEST_URL: `http://webhook-ingest:${compose.services['webhook-ingest'].environment?.WEBHOOK_INGEST_PORT}`,
      AUTOMATION_URL: `http://automation:${compose.services.automation.environment?.AUTOMATION_PORT}`,
      MCP_INGEST_URL: `http://mcp-ingest:${compose.services['mcp-ingest'].environment?.MCP_INGEST_PORT}`,
      MIGRATE_URL: `http://migrate:${compose.services.migrate.environment?.MIGRATE_PORT}`,
    });
  });

  it('sends traces to the collector, which exports them to Jaeger over OTLP', () => {
    const collector = parse(
      readFileSync(join(ROOT, 'deploy', 'otel', 'collector.yaml'), 'utf8'),
    ) as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      exporters: Record<string, { endpoint?: string; tls?: { insecure?: boolean } }>;
      service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } };
    };
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    const traces = collector.service.pipelines.traces;
    expect(traces.receivers).toContain('otlp');
    const toJaeger = traces.exporters.filter(
      (name) =>
        name.split('/')[0] === 'otlp' && collector.exporters[name]?.endpoint === 'jaeger:4317',
    );
    expect(toJaeger).toHaveLength(1);
    expect(compose.services['otel-collector'].volumes).toContain(
      './deploy/otel/collector.yaml:/etc/otelcol-contrib/collector.yaml:ro',
    );
    const jaeger = compose.services.jaeger;
    expect(jaeger.image).toMatch(/^jaegertracing\/all-in-one:\d+\.\d+\.\d+$/);
    expect(jaeger.environment?.COLLECTOR_OTLP_ENABLED).toBe('true');
    expect(jaeger.ports).toEqual(['16686:16686']);
  });
});
