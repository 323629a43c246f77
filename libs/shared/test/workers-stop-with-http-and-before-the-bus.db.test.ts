import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { loadConfig, serviceEnv } from '@crm/shared/config';
import { createEvent, InProcessBus, type EventEnvelope } from '@crm/shared/events';
import { createServiceApp } from '@crm/shared/http';
import {
  closeServer,
  consumerWorker,
  listen,
  serve,
  stopService,
  type ServiceDefinition,
  type Worker,
} from '@crm/shared/service';
import { captureLogger, eventually, testDb } from '@crm/shared/testing';
import express from 'express';

function anEvent(): EventEnvelope {
  return createEvent({
    type: 'lead.imported',
    tenant_id: randomUUID(),
    record: { module: 'leads', id: randomUUID() },
    data: {},
  });
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('a service worker (ServiceDefinition.workers)', () => {
  const logs = captureLogger();

  it('stop() stops pulling and resolves only after the in-flight handler has finished', async () => {
    const bus = new InProcessBus({ logger: logs.logger });
    const handled: string[] = [];
    const release = deferred();
    const worker = consumerWorker('lead-consumer', bus, {
      durable: 'worker-test',
      retryDelayMs: 10,
      handler: async (event) => {
        handled.push(`started ${event.id}`);
        await release.promise;
        handled.push(`finished ${event.id}`);
      },
    });
    await worker.start();
    const first = anEvent();
    await bus.publish(first);
    await eventually(() => expect(handled).toEqual([`started ${first.id}`]));

    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    release.resolve();
    await stopping;
    expect(handled).toEqual([`started ${first.id}`, `finished ${first.id}`]);

    await bus.publish(anEvent());
    await new Promise((r) => setTimeout(r, 50));
    expect(handled).toHaveLength(2);
    await bus.close();
  });

  it('stopService turns readiness off, drains HTTP while the workers stop, then relay, bus, pool', async () => {
    const order: string[] = [];
    const bus = new InProcessBus({ logger: logs.logger });
    const handlerRelease = deferred();
    const requestRelease = deferred();
    const consumer = consumerWorker('lead-consumer', bus, {
      durable: 'order-test',
      handler: async () => {
        await handlerRelease.promise;
        order.push('handler finished');
      },
    });
    const worker: Worker = {
      name: consumer.name,
      start: () => consumer.start(),
      stop: async () => {
        order.push('workers stop called');
        await consumer.stop();
        order.push('workers stopped');
      },
    };
    const app = express().get('/slow', async (_req, res) => {
      await requestRelease.promise;
      order.push('request finished');
      res.send('ok');
    });
    const server: Server = await listen(app, 0, '127.0.0.1');
    server.on('close', () => order.push('http closed'));
    await worker.start();
    const { port } = server.address() as AddressInfo;
    const inFlight = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
    await bus.publish(anEvent());
    await new Promise((r) => setTimeout(r, 50));

    const stopping = stopService(
      {
        startDraining: () => void order.push('draining'),
        servers: [{ server, timeoutMs: 5000 }],
        workers: [worker],
        relay: { stop: async () => void order.push('relay stopped') },
        bus: {
          close: async () => {
            await bus.close();
            order.push('bus closed');
          },
        },
        database: { close: async () => void order.push('pool closed') },
      },
      logs.logger,
    );
    await new Promise((r) => setTimeout(r, 50));
    // Readiness is off and the consumer stops pulling at once; the in-flight request and
    // handler hold everything after them.
    expect(order).toEqual(['draining', 'workers stop called']);
    requestRelease.resolve();
    await eventually(() => expect(order).toContain('http closed'));
    expect(order).not.toContain('relay stopped');
    handlerRelease.resolve();
    await stopping;
    await expect(inFlight).resolves.toBe('ok');
    expect(order.indexOf('request finished')).toBeLessThan(order.indexOf('http closed'));
    expect(order.slice(order.indexOf('handler finished'))).toEqual([
      'handler finished',
      'workers stopped',
      'relay stopped',
      'bus closed',
      'pool closed',
    ]);
  });

  it('stopService waits for a worker at most SHUTDOWN_TIMEOUT_MS, then closes the rest', async () => {
    const order: string[] = [];
    const stuck: Worker = {
      name: 'stuck',
      start: async () => undefined,
      stop: () => new Promise<void>(() => undefined),
    };
    await stopService(
      {
        servers: [],
        workers: [stuck],
        workersTimeoutMs: 100,
        relay: { stop: async () => void order.push('relay') },
        bus: { close: async () => void order.push('bus') },
        database: { close: async () => void order.push('pool') },
      },
      logs.logger,
    );
    expect(order).toEqual(['relay', 'bus', 'pool']);
    expect(logs.lines()).toContainEqual(
      expect.objectContaining({
        msg: expect.stringContaining('workers still busy at the shutdown timeout'),
        workers: ['stuck'],
        timeoutMs: 100,
      }),
    );
  });

  it('stopService attempts every step when one fails, then rethrows the failure', async () => {
    const order: string[] = [];
    const failing: Worker = {
      name: 'broken',
      start: async () => undefined,
      stop: async () => {
        throw new Error('worker would not stop');
      },
    };
    await expect(
      stopService(
        {
          servers: [],
          workers: [failing],
          relay: { stop: async () => void order.push('relay') },
          bus: { close: async () => void order.push('bus') },
          database: { close: async () => void order.push('pool') },
        },
        logs.logger,
      ),
    ).rejects.toThrow('worker would not stop');
    expect(order).toEqual(['relay', 'bus', 'pool']);
  });

  it('serve() (standalone start and npm start) starts the workers once the app listens, and startDraining() turns /ready off', async () => {
    const database = testDb();
    const bus = new InProcessBus({ logger: logs.logger });
    const port = await freePort();
    const seen: Array<{ worker: string; answered: number | undefined }> = [];
    const configSchema = serviceEnv.extend({});
    const definition: ServiceDefinition<typeof configSchema> = {
      name: 'worker-fixture',
      configSchema,
      port: () => port,
      createApp: (deps) =>
        createServiceApp({
          logger: deps.logger,
          bodyLimitBytes: deps.bodyLimitBytes,
          health: { version: deps.version, checkDatabase: deps.pingDatabase },
          readiness: { bus: deps.bus, isDraining: deps.isDraining },
          routes: (app) => app.get('/up', (_req, res) => void res.send('up')),
        }),
      runsOutboxRelay: false,
      packageDir: __dirname,
      workers: (deps) => {
        expect(deps.bus).toBe(bus);
        return ['first', 'second'].map((name) => ({
          name,
          start: async () => {
            const answered = await fetch(`http://127.0.0.1:${port}/up`).then(
              (res) => res.status,
              () => undefined,
            );
            seen.push({ worker: name, answered });
          },
          stop: async () => undefined,
        }));
      },
    };
    try {
      const served = await serve(
        definition,
        loadConfig('worker-fixture', configSchema, { HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
        { database, bus, internalTokenSecret: 'x'.repeat(32) },
      );
      expect(served.workers.map((w) => w.name)).toEqual(['first', 'second']);
      expect(seen).toEqual([
        { worker: 'first', answered: 200 },
        { worker: 'second', answered: 200 },
      ]);
      // Ready until the shutdown starts: startDraining() turns the app's /ready to 503.
      const ready = await fetch(`http://127.0.0.1:${port}/ready`);
      expect(ready.status).toBe(200);
      served.startDraining();
      const draining = await fetch(`http://127.0.0.1:${port}/ready`);
      expect(draining.status).toBe(503);
      expect(await draining.json()).toEqual({
        status: 'not_ready',
        checks: { database: 'not_checked', bus: 'up', draining: true },
      });
      await closeServer(served.server, 1000);
    } finally {
      await bus.close();
      await database.close();
    }
  });
});

async function freePort(): Promise<number> {
  const probe = await listen(express(), 0, '127.0.0.1');
  const { port } = probe.address() as AddressInfo;
  await closeServer(probe, 0);
  return port;
}

describe('a service started alone (runStandalone) with a worker', () => {
  const natsUrl = process.env.TEST_NATS_URL;
  (natsUrl ? it : it.skip)(
    'starts the worker once it listens and, on SIGTERM, lets its job finish before it stops',
    async () => {
      const fixturePort = await freePort();
      const child = spawn(
        join(__dirname, '..', '..', '..', 'node_modules', '.bin', 'tsx'),
        [join(__dirname, 'fixtures', 'service-with-a-worker.ts')],
        {
          env: {
            PATH: process.env.PATH ?? '',
            DATABASE_URL: process.env.DATABASE_URL ?? '',
            NATS_URL: natsUrl ?? '',
            INTERNAL_TOKEN_SECRET: 'standalone-test-secret-0123456789abcdef',
            FIXTURE_PORT: String(fixturePort),
            HOST: '127.0.0.1',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
      try {
        await eventually(() => expect(stdout).toContain('job started'), 15_000, 20);
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        clearTimeout(kill);
      }
      const messages = stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { msg: string }).msg)
        .filter((msg) =>
          [
            'worker-fixture listening',
            'job started',
            'shutting down',
            'worker stopping',
            'job finished',
            'worker stopped',
            'stopped',
          ].includes(msg),
        );
      expect(messages).toEqual([
        'worker-fixture listening',
        'job started',
        'shutting down',
        'worker stopping',
        'job finished',
        'worker stopped',
        'stopped',
      ]);
    },
  );
});
