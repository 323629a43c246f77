import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../libs/shared/src/config';
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
import { freshDatabase, jsonLines, startAll } from './support/start-all-process';

/**
 * `npm start` with its port variables set used to leave the gateway proxying
 * to 127.0.0.1:4001-4005, silently reaching another copy of the platform on the machine. The
 * all-in-one start now derives the upstream URLs from the ports (a set *_URL still wins), and a
 * port already taken fails the start naming the variable to change.
 */
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

describe('npm start (spawned)', () => {
  it('refuses a port that is taken, naming its variable, before starting anything', async () => {
    const taken = await occupy();
    const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    try {
      const result = await startAll(
        {
          DATABASE_URL: process.env.DATABASE_URL ?? '',
          DEV_DATA_DIR: dataDir,
          HOST: '127.0.0.1',
          CRM_API_PORT: String(taken.port),
        },
        async () => undefined,
      );
      expect(result.code).toBe(1);
      // One line, no stack trace.
      expect(result.stderr).toBe(
        `npm start: port ${taken.port} is in use: set CRM_API_PORT to a free port\n`,
      );
    } finally {
      await taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('with every port variable set, the gateway reaches the services on those ports; JSON logs off a terminal; stops cleanly', async () => {
    const database = await freshDatabase();
    // The profile's secrets file there, never in the developer's .data/.
    const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    const ports: Record<string, number> = {};
    for (const variable of Object.values(PORT_VARIABLES)) ports[variable] = await freePort();
    // The echo receiver's port too: its default may be another copy of the platform's.
    const echoPort = await freePort();
    let health: { status: number; body: Record<string, unknown> } | undefined;
    try {
      const result = await startAll(
        {
          // No HOST or BACKEND_HOST: the defaults are what is checked below.
          DATABASE_URL: database.url,
          DEV_DATA_DIR: dataDir,
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
      const parsed = jsonLines(result.stdout);
      const running = parsed.find((l) => l.msg === 'CRM platform is running');
      expect(running?.services).toEqual({
        'crm-api': `http://127.0.0.1:${ports.CRM_API_PORT}`,
        'webhook-ingest': `http://127.0.0.1:${ports.WEBHOOK_INGEST_PORT}`,
        automation: `http://127.0.0.1:${ports.AUTOMATION_PORT}`,
        'mcp-ingest': `http://127.0.0.1:${ports.MCP_INGEST_PORT}`,
        migrate: `http://127.0.0.1:${ports.MIGRATE_PORT}`,
      });
      // The commands to try, each with no secret (the default demo password is public).
      expect(running?.signIn).toBe(
        `curl -s -c /tmp/crm.cookies -H 'content-type: application/json' -d '{"email":"demo@example.com","password":"demo-password"}' http://localhost:${ports.GATEWAY_PORT}/api/auth/sign-in`,
      );
      expect(running?.try).toEqual([
        `curl -s -b /tmp/crm.cookies http://localhost:${ports.GATEWAY_PORT}/api/auth/me`,
        `curl -s -b /tmp/crm.cookies 'http://localhost:${ports.GATEWAY_PORT}/api/crm/deals?limit=5'`,
      ]);
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
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
