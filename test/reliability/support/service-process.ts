import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '@crm/test-kit';

const ROOT = join(__dirname, '..', '..', '..');
/** Node flags that let the suite ask a service for a full GC (support/gc-on-signal.cjs). */
const GC_ON_SIGNAL = ['--expose-gc', '--require', join(__dirname, 'gc-on-signal.cjs')];
/**
 * The young generation of the package start scripts and the image (deploy/Dockerfile). Without
 * it V8 grows the semi-spaces to 16 MB under load and keeps them, so a soak's RSS readings
 * measured how busy the machine was (+15-18% in one CI run, -8% in another) rather than leaks.
 */
const PRODUCTION_FLAGS = ['--max-semi-space-size=8'];
/** The image's malloc setting (deploy/Dockerfile): without it glibc keeps freed arenas' memory. */
const PRODUCTION_ENV = { MALLOC_ARENA_MAX: '2' };

/**
 * A service run as its own process the way it runs in production: its compiled `dist/main.js`
 * (`npm run test:reliability` builds first) under the start script's node flags, kept running
 * until the test stops or kills it.
 */
export class ServiceProcess {
  private output = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (d) => (this.output += d));
    child.stderr?.on('data', (d) => (this.output += d));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Starts `services/<name>/dist/main.js` with `env` (plus PATH) and waits until it listens. */
  static async start(name: string, env: Record<string, string>): Promise<ServiceProcess> {
    const args = [...PRODUCTION_FLAGS, ...GC_ON_SIGNAL, 'dist/main.js'];
    const child = spawn(process.execPath, args, {
      cwd: join(ROOT, 'services', name),
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...PRODUCTION_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const service = new ServiceProcess(name, child);
    const port = Number(env.PORT ?? Object.entries(env).find(([k]) => k.endsWith('_PORT'))?.[1]);
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited: ${service.output}`);
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        expect(res.status).toBeLessThan(600);
      },
      60_000,
      100,
    ).catch(async (err: unknown) => {
      // Never leave a process that did not come up behind: it would outlive the suite.
      await service.kill();
      throw err;
    });
    return service;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Throws, with how it ended and its last output, when the process is no longer running. */
  private assertRunning(): void {
    if (this.running()) return;
    const how = this.child.signalCode ?? `code ${this.child.exitCode}`;
    throw new Error(
      `${this.name} has exited (${how}); its last output:\n${this.output.slice(-4000)}`,
    );
  }

  /** False once the process has exited, whatever the reason. */
  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  logs(): string {
    return this.output;
  }

  /**
   * Resident memory after a full compacting GC (Linux: VmRSS of /proc/<pid>/status), in MB.
   * The second's wait lets V8 hand the pages the collection freed back to the OS.
   */
  async rssAfterGcMb(): Promise<number> {
    this.assertRunning();
    this.child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 1000));
    this.assertRunning();
    const status = await readFile(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
    return Math.round(kb / 102.4) / 10;
  }

  /** SIGKILL: no shutdown hooks, requests in flight are cut, as in a crash. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM, the clean stop; SIGKILL if it has not exited within 20 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const force = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(force);
  }
}
