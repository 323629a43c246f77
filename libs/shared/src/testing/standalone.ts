import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from './eventually';

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * Starts a service's main.ts as its own process (as `npm run start -w services/<name>` does,
 * from source) with exactly `env` (plus PATH). `until` decides when the test is done with it.
 * One node process with tsx's loader, not the tsx CLI: the CLI relays a signal to its child
 * and sends it again when the child has not acknowledged it within 30 ms, which a busy machine
 * misses, so a service would see SIGTERM twice and stop with 143 instead of 0.
 */
export function runServiceProcess(
  serviceDir: string,
  env: Record<string, string>,
  until: (proc: {
    stdout: () => string;
    kill: (signal: NodeJS.Signals) => void;
  }) => Promise<void> = async () => undefined,
): Promise<ProcessResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: join(ROOT, 'services', serviceDir),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<ProcessResult>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return (async () => {
    try {
      await Promise.race([until({ stdout: () => stdout, kill: (s) => child.kill(s) }), exited]);
    } finally {
      // Never leave a process behind, whatever the test did.
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    }
    return exited;
  })();
}

export interface ServiceProcess {
  stdout(): string;
  /** SIGTERM, then SIGKILL if it has not exited within 10 s; resolves with how it ended. */
  stop(): Promise<ProcessResult>;
}

/**
 * Starts a service's main.ts as its own long-running process (see runServiceProcess) and
 * resolves once it logs that it listens; the caller stops it. A process that exits first
 * rejects with its output.
 */
export async function startServiceProcess(
  serviceDir: string,
  env: Record<string, string>,
): Promise<ServiceProcess> {
  let stop: () => void = () => undefined;
  let current: { stdout: () => string } | undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const result = runServiceProcess(serviceDir, env, async (proc) => {
    current = proc;
    await stopped;
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), 10_000).unref();
    await new Promise(() => undefined); // until it exits
  });
  const listening = eventually(
    () => expect(current?.stdout() ?? '').toContain(`${serviceDir} listening`),
    60_000,
    50,
  );
  const exitedFirst = result.then((r) => {
    throw new Error(`${serviceDir} exited before listening (${r.code}): ${r.stderr || r.stdout}`);
  });
  await Promise.race([listening, exitedFirst]);
  exitedFirst.catch(() => undefined);
  return {
    stdout: () => current?.stdout() ?? '',
    stop: () => {
      stop();
      return result;
    },
  };
}

/**
 * What main.ts of every service must do: refuse to start alone without DATABASE_URL, NATS_URL
 * and INTERNAL_TOKEN_SECRET, saying which; with them, listen, answer /health, and stop cleanly
 * (exit 0, pools and bus closed) on SIGTERM.
 */
export function describeStandaloneStart(serviceDir: string, portVariable: string): void {
  describe(`${serviceDir} started alone (main.ts)`, () => {
    it('refuses to start without DATABASE_URL, NATS_URL and INTERNAL_TOKEN_SECRET, naming each', async () => {
      const result = await runServiceProcess(serviceDir, {});
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`Invalid configuration for ${serviceDir}`);
      expect(result.stderr).toMatch(/DATABASE_URL: required when a service runs alone/);
      expect(result.stderr).toMatch(/NATS_URL: required when a service runs alone/);
      expect(result.stderr).toMatch(/INTERNAL_TOKEN_SECRET: required when a service runs alone/);
    });

    it(`rejects an invalid ${portVariable} naming the variable`, async () => {
      const result = await runServiceProcess(serviceDir, { [portVariable]: 'eighty' });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${portVariable}: expected a port (1-65535)`);
    });

    const natsUrl = process.env.TEST_NATS_URL;
    /** Everything a service needs to start alone, on `port`. */
    const startableEnv = (port: number) => ({
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      NATS_URL: natsUrl ?? '',
      INTERNAL_TOKEN_SECRET: 'standalone-test-secret-0123456789abcdef',
      [portVariable]: String(port),
      HOST: '127.0.0.1',
    });
    (natsUrl ? it : it.skip)('listens, answers /health, and exits 0 on SIGTERM', async () => {
      const port = 20000 + Math.floor(Math.random() * 20000);
      let health: { status: number; body: unknown } | undefined;
      const result = await runServiceProcess(
        serviceDir,
        startableEnv(port),
        async ({ stdout, kill }) => {
          await eventually(() => expect(stdout()).toContain(`${serviceDir} listening`), 20_000, 50);
          const res = await fetch(`http://127.0.0.1:${port}/health`);
          health = { status: res.status, body: await res.json() };
          kill('SIGTERM');
        },
      );
      expect(health).toMatchObject({ status: 200, body: { status: 'healthy' } });
      expect(result.signal).toBeNull();
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('"msg":"stopped"');
    });

    (natsUrl ? it : it.skip)(
      'exits 0 on SIGTERM when its trace collector cannot be reached',
      async () => {
        const port = 20000 + Math.floor(Math.random() * 20000);
        const result = await runServiceProcess(
          serviceDir,
          {
            ...startableEnv(port),
            // Port 9 (discard) is closed here: every export is refused.
            OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
          },
          async ({ stdout, kill }) => {
            await eventually(
              () => expect(stdout()).toContain(`${serviceDir} listening`),
              20_000,
              50,
            );
            // A traced request (probes are not traced), so shutdown has a span to flush.
            await fetch(`http://127.0.0.1:${port}/no-such-path`);
            kill('SIGTERM');
          },
        );
        expect(result.signal).toBeNull();
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('"msg":"stopped"');
      },
      30_000,
    );
  });
}
