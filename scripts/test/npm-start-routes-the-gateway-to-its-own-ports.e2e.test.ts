import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../libs/shared/src/config';
import { dropDatabase, ensureDatabase, withDatabase } from '../../libs/shared/src/db';
import { listen } from '../../libs/shared/src/service';
import { eventually } from '../../libs/shared/src/testing';
import express from 'express';
import { freePort } from '../dev/embedded-postgres';
import {
  checkPorts,
  connectHost,
  listenEnvFor,
  listenProblem,
  PORT_VARIABLES,
  UPSTREAM_URL_VARIABLES,
  upstreamUrlsFor,
  type BackendName,
} from '../dev/ports';
import { services } from '../dev/services';

/**
 * `npm start` with its port variables set used to leave the gateway proxying
 * to 127.0.0.1:4001-4005, silently reaching another copy of the platform on the machine. The
 * all-in-one start now derives the upstream URLs from the ports (a set *_URL still wins), and a
 * port already taken fails the start naming the variable to change.
 */
const ROOT = join(__dirname, '..', '..');
const BACKEND_PORTS: Record<BackendName, number> = {
  'crm-api': 14001,
  'webhook-ingest': 14002,
  automation: 14003,
  'mcp-ingest': 14004,
  migrate: 14005,
};

/** Holds a port the way another program would. */
async function occupy(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('upstream URLs of the all-in-one start', () => {
  it('follow the ports the backends listen on when no *_URL is set', () => {
    expect(upstreamUrlsFor({}, BACKEND_PORTS, '0.0.0.0')).toEqual({
      CRM_API_URL: 'http://127.0.0.1:14001',
      WEBHOOK_INGEST_URL: 'http://127.0.0.1:14002',
      AUTOMATION_URL: 'http://127.0.0.1:14003',
      MCP_INGEST_URL: 'http://127.0.0.1:14004',
      MIGRATE_URL: 'http://127.0.0.1:14005',
    });
  });

  it('leave a *_URL that is set alone (the operator chose it)', () => {
    const urls = upstreamUrlsFor(
      { AUTOMATION_URL: 'http://automation.internal:9000' },
      BACKEND_PORTS,
      '0.0.0.0',
    );
    expect(urls.AUTOMATION_URL).toBeUndefined();
    expect(urls.CRM_API_URL).toBe('http://127.0.0.1:14001');
  });

  it('reach a specific HOST at that address (IPv6 in brackets), a wildcard at loopback', () => {
    expect(connectHost('127.0.0.2')).toBe('127.0.0.2');
    expect(connectHost('::1')).toBe('[::1]');
    expect(connectHost('::')).toBe('127.0.0.1');
    expect(connectHost('0.0.0.0')).toBe('127.0.0.1');
    expect(upstreamUrlsFor({}, BACKEND_PORTS, '::1').MIGRATE_URL).toBe('http://[::1]:14005');
  });

  it('are what the gateway then proxies to', () => {
    const gateway = services.find((s) => s.name === 'gateway');
    const config = loadConfig('gateway', gateway!.configSchema, {
      ...upstreamUrlsFor({}, BACKEND_PORTS, '0.0.0.0'),
    }) as Record<string, unknown>;
    for (const [name, variable] of Object.entries(UPSTREAM_URL_VARIABLES)) {
      expect(config[variable]).toBe(`http://127.0.0.1:${BACKEND_PORTS[name as BackendName]}`);
    }
  });

  it('name the port variable each service really reads', () => {
    for (const service of services) {
      const variable = PORT_VARIABLES[service.name as keyof typeof PORT_VARIABLES];
      const config = loadConfig(service.name, service.configSchema, { [variable]: '23456' });
      expect([service.name, service.port(config as never)]).toEqual([service.name, 23456]);
    }
    expect(Object.keys(PORT_VARIABLES).sort()).toEqual(services.map((s) => s.name).sort());
  });
});

describe('listening addresses of the all-in-one start', () => {
  it('the gateway on HOST, every backend on BACKEND_HOST (default 127.0.0.1)', () => {
    const env = { HOST: '0.0.0.0', OTHER: 'kept' };
    expect(listenEnvFor('gateway', env)).toEqual(env);
    for (const backend of Object.keys(UPSTREAM_URL_VARIABLES) as BackendName[]) {
      expect(listenEnvFor(backend, env)).toEqual({ HOST: '127.0.0.1', OTHER: 'kept' });
      expect(listenEnvFor(backend, { ...env, BACKEND_HOST: '::1' }).HOST).toBe('::1');
    }
  });
});

describe('ports already taken', () => {
  it('fail the check naming the variable to change', async () => {
    const taken = await occupy();
    try {
      const free = await freePort();
      const check = checkPorts([
        { variable: 'GATEWAY_PORT', port: free, host: '127.0.0.1' },
        { variable: 'CRM_API_PORT', port: taken.port, host: '127.0.0.1' },
      ]);
      await expect(check).rejects.toThrow(ConfigError);
      await expect(check).rejects.toThrow(
        `port ${taken.port} is in use: set CRM_API_PORT to a free port`,
      );
      await expect(check).rejects.not.toThrow('GATEWAY_PORT');
    } finally {
      await taken.close();
    }
  });

  it('fail the check when two services are given the same port', async () => {
    const port = await freePort();
    await expect(
      checkPorts([
        { variable: 'GATEWAY_PORT', port, host: '127.0.0.1' },
        { variable: 'MIGRATE_PORT', port, host: '127.0.0.1' },
      ]),
    ).rejects.toThrow(`GATEWAY_PORT and MIGRATE_PORT are both ${port}: give each its own port`);
  });

  it('pass the check when free', async () => {
    const port = await freePort();
    await expect(
      checkPorts([{ variable: 'GATEWAY_PORT', port, host: '127.0.0.1' }]),
    ).resolves.toBeUndefined();
  });

  it('taken between the check and the listen: the same message from the real listen error', async () => {
    const taken = await occupy();
    try {
      const err = await listen(express(), taken.port, '127.0.0.1').then(
        (server) => {
          server.close();
          throw new Error('listened on a taken port');
        },
        (e: unknown) => e,
      );
      expect((err as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
      const problem = listenProblem(
        { variable: 'WEBHOOK_INGEST_PORT', port: taken.port, host: '127.0.0.1' },
        err,
      );
      expect(problem).toBeInstanceOf(ConfigError);
      expect((problem as Error).message).toContain(
        `port ${taken.port} is in use: set WEBHOOK_INGEST_PORT to a free port`,
      );
    } finally {
      await taken.close();
    }
  });
});

interface Started {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm start` (scripts/start-all.ts) as its own process with exactly `env` (plus PATH). */
function startAll(
  env: Record<string, string>,
  until: (stdout: () => string, kill: (signal: NodeJS.Signals) => void) => Promise<void>,
): Promise<Started> {
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/start-all.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<Started>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return (async () => {
    try {
      await Promise.race([
        until(
          () => stdout,
          (s) => child.kill(s),
        ),
        exited,
      ]);
    } finally {
      // Never leave it running, whatever the test did.
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    }
    return exited;
  })();
}

describe('npm start (spawned)', () => {
  it('refuses a port that is taken, naming its variable, before starting anything', async () => {
    const taken = await occupy();
    try {
      const result = await startAll(
        {
          DATABASE_URL: process.env.DATABASE_URL ?? '',
          HOST: '127.0.0.1',
          CRM_API_PORT: String(taken.port),
        },
        async () => undefined,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `port ${taken.port} is in use: set CRM_API_PORT to a free port`,
      );
    } finally {
      await taken.close();
    }
  }, 60_000);

  it('with every port variable set, the gateway reaches the services on those ports; JSON logs off a terminal; stops cleanly', async () => {
    // A database of its own: the start migrates it, seeds the demo and runs a relay on it.
    const adminUrl = process.env.TEST_ADMIN_DATABASE_URL as string;
    const template = process.env.TEST_TEMPLATE_DATABASE as string;
    const name = `${template.replace(/_tpl$/, '')}_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
    await ensureDatabase(adminUrl, name, template);
    const ports: Record<string, number> = {};
    for (const variable of Object.values(PORT_VARIABLES)) ports[variable] = await freePort();
    // The echo receiver's port too: its default may be another copy of the platform's.
    const echoPort = await freePort();
    let health: { status: number; body: Record<string, unknown> } | undefined;
    try {
      const result = await startAll(
        {
          // No HOST or BACKEND_HOST: the defaults are what is checked below.
          DATABASE_URL: withDatabase(adminUrl, name),
          LOG_LEVEL: 'info',
          ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
          ECHO_RECEIVER_PORT: String(echoPort),
        },
        async (stdout, kill) => {
          await eventually(
            () => expect(stdout()).toContain('CRM platform is running'),
            60_000,
            100,
          );
          const res = await fetch(`http://127.0.0.1:${ports.GATEWAY_PORT}/api/health`);
          health = { status: res.status, body: (await res.json()) as Record<string, unknown> };
          kill('SIGTERM');
        },
      );
      expect(health?.status).toBe(200);
      expect(health?.body).toMatchObject({
        status: 'healthy',
        services: {
          'crm-api': { status: 'up' },
          'webhook-ingest': { status: 'up' },
          automation: { status: 'up' },
          'mcp-ingest': { status: 'up' },
          migrate: { status: 'up' },
        },
        checks: { events: { status: 'up' } },
      });
      expect(result.code).toBe(0);
      // Not a terminal: every stdout line is a JSON log line (no banner text in between).
      const lines = result.stdout.split('\n').filter(Boolean);
      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const running = parsed.find((l) => l.msg === 'CRM platform is running');
      expect(running?.services).toEqual({
        'crm-api': `http://127.0.0.1:${ports.CRM_API_PORT}`,
        'webhook-ingest': `http://127.0.0.1:${ports.WEBHOOK_INGEST_PORT}`,
        automation: `http://127.0.0.1:${ports.AUTOMATION_PORT}`,
        'mcp-ingest': `http://127.0.0.1:${ports.MCP_INGEST_PORT}`,
        migrate: `http://127.0.0.1:${ports.MIGRATE_PORT}`,
      });
      expect(running?.demo).toMatchObject({ password: '[redacted]' });
      // The addresses the sockets really bound: only the gateway is reachable from elsewhere.
      const bound = Object.fromEntries(
        parsed
          .filter((l) => typeof l.msg === 'string' && l.msg.endsWith(' listening'))
          .map((l) => [String(l.msg).replace(/ listening$/, ''), `${l.host}:${l.port}`]),
      );
      expect(bound).toEqual({
        gateway: `0.0.0.0:${ports.GATEWAY_PORT}`,
        'crm-api': `127.0.0.1:${ports.CRM_API_PORT}`,
        'webhook-ingest': `127.0.0.1:${ports.WEBHOOK_INGEST_PORT}`,
        automation: `127.0.0.1:${ports.AUTOMATION_PORT}`,
        'mcp-ingest': `127.0.0.1:${ports.MCP_INGEST_PORT}`,
        migrate: `127.0.0.1:${ports.MIGRATE_PORT}`,
      });
      expect(parsed.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
      expect(parsed.map((l) => l.msg)).toContain('every service stopped');
    } finally {
      await dropDatabase(adminUrl, name);
    }
  }, 120_000);
});
