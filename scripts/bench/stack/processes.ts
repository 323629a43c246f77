import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = join(__dirname, '..', '..', '..');

/** Every process the bench started, stopped by stopAll() on the way out, failure or Ctrl-C. */
const children = new Set<ChildProcess>();

export async function stopProcess(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!done) {
    child.kill('SIGKILL');
    await exited;
  }
  children.delete(child);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((child) => stopProcess(child)));
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Polls `check` every 100 ms until it holds; after 60 s, fails with `${what} ${notYet}`. With a
 * `child`, fails at once when that process exits.
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  options: { child?: ChildProcess; notYet?: string } = {},
) {
  const { child, notYet = 'did not come up' } = options;
  for (let i = 0; i < 600; i++) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode})`);
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`${what} ${notYet} within 60 s`);
}

/**
 * BENCH_CPU_PROF=<dir>: every service writes a CPU profile there when it stops (node --cpu-prof),
 * to see where a scenario's time goes before and after a change.
 */
const PROFILE_FLAGS = process.env.BENCH_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
  : [];

/**
 * BENCH_SEMI_SPACE_MB: the services' `--max-semi-space-size` (default 8, as their images run), to
 * weigh V8's young generation against throughput.
 */
const SEMI_SPACE_FLAG = `--max-semi-space-size=${process.env.BENCH_SEMI_SPACE_MB ?? 8}`;

/**
 * A service as its image runs it: compiled JavaScript (`npm run build` first), one process,
 * `--max-semi-space-size=8` like its start script. Resolves once /health answers 200. `root` is
 * the checkout whose build runs (default this one; another for a before/after comparison).
 */
export async function startService(
  name: string,
  port: number,
  env: Record<string, string>,
  root: string = ROOT,
): Promise<ChildProcess> {
  const child = track(
    spawn(
      process.execPath,
      [...PROFILE_FLAGS, SEMI_SPACE_FLAG, join('services', name, 'dist', 'main.js')],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    ),
  );
  await waitFor(
    name,
    () =>
      fetch(`http://127.0.0.1:${port}/health`).then(
        (res) => res.status === 200,
        () => false,
      ),
    { child },
  );
  return child;
}

/** A process of the bench's own bare baselines (bare.ts), answering on the port it prints. */
export async function startBare(
  role: string,
  ...args: string[]
): Promise<{ child: ChildProcess; port: number }> {
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'bare-http.ts'), role, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
    child.once('exit', (code) => reject(new Error(`bare ${role} exited (${code})`)));
  });
  return { child, port };
}

export interface NatsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * A nats-server with JetStream of the bench's own (spare port, temporary store, deleted at the
 * end): the platform's events never land in a shared server's stream.
 */
export async function startNatsServer(port: number): Promise<NatsServer> {
  const store = mkdtempSync(join(tmpdir(), 'crm-bench-nats-'));
  const binary = process.env.NATS_SERVER_BIN ?? 'nats-server';
  const child = track(
    spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {
      stdio: 'ignore',
      env: { PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` },
    }),
  );
  await waitFor('nats-server', () => portAnswers(port), { child });
  return {
    url: `nats://127.0.0.1:${port}`,
    close: async () => {
      await stopProcess(child);
      rmSync(store, { recursive: true, force: true });
    },
  };
}

/** Resident memory of a process, in MB (ps). */
export async function rssMb(pid: number): Promise<number> {
  const out = await new Promise<string>((resolve) => {
    const ps = spawn('ps', ['-o', 'rss=', '-p', String(pid)], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let text = '';
    ps.stdout.on('data', (d) => (text += d));
    ps.on('exit', () => resolve(text));
  });
  return Number((Number(out.trim()) / 1024).toFixed(1));
}
