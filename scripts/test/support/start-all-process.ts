import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { dropDatabase, ensureDatabase, withDatabase } from '../../../libs/shared/src/db';
import { freePort } from '../../dev/embedded-postgres';
import { PORT_VARIABLES } from '../../dev/ports';

const ROOT = join(__dirname, '..', '..', '..');

export interface Started {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm start` (scripts/start-all.ts) with `args`, as its own process with exactly `env` (plus PATH), stdout
 * and stderr piped (not a terminal). `until` drives it (and sends the stopping signal); the
 * promise resolves once the process has exited. Killed after 20 s more whatever happens.
 * It leads a process group of its own: `killGroup` signals every process in it, as Ctrl-C in
 * a terminal does (tsx, node and whatever they started in the group).
 */
export function startAll(
  env: Record<string, string>,
  until: (
    stdout: () => string,
    kill: (signal: NodeJS.Signals) => void,
    killGroup: (signal: NodeJS.Signals) => void,
  ) => Promise<void>,
  args: string[] = [],
): Promise<Started> {
  // As `npm start` runs it: node with tsx's loader, not the tsx command, whose signal relay
  // kills its child (exit 143) when the child's event loop takes more than 60 ms to answer a
  // SIGTERM, so a busy platform could never stop cleanly.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-all.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // 'close': the exit code and every byte the process wrote (its pipes are drained).
  const exited = new Promise<Started>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return (async () => {
    try {
      await Promise.race([
        until(
          () => stdout,
          (s) => child.kill(s),
          (s) => process.kill(-(child.pid as number), s),
        ),
        exited,
      ]);
    } finally {
      // Never leave it running, whatever the test did.
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) {
          process.kill(-(child.pid as number), 'SIGKILL');
        }
      }, 20_000).unref();
    }
    return exited;
  })();
}

/** Every stdout line of a run off a terminal, parsed (each must be a JSON log line). */
export function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * A distinct free port for each service's port variable, and `extra` more (the embedded
 * Postgres): a port just freed may be handed out again, so a repeat is drawn anew.
 */
export async function freeServicePorts(extra: string[] = []): Promise<Record<string, string>> {
  const ports: Record<string, string> = {};
  const taken = new Set<number>();
  for (const variable of [...Object.values(PORT_VARIABLES), ...extra]) {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    ports[variable] = String(port);
  }
  return ports;
}

/**
 * A database of its own, cloned from the run's migrated template: a start migrates it, seeds
 * the demo and runs a relay on it, which must not pick up other tests' outbox rows.
 */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL as string;
  const template = process.env.TEST_TEMPLATE_DATABASE as string;
  const name = `${template.replace(/_tpl$/, '')}_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
  await ensureDatabase(adminUrl, name, template);
  return { url: withDatabase(adminUrl, name), drop: () => dropDatabase(adminUrl, name) };
}
