import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortForTests } from '@crm/test-kit';

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => done(true));
  });
}

/**
 * A JetStream server of the suite's own (spare port, temporary store directory), so a test can
 * stop and restart the broker without touching the machine's NATS. Restarting keeps the port
 * and the store: streams and durable consumers survive, as on a real broker restart.
 */
export class NatsServerProcess {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly storeDir: string,
  ) {}

  static async start(): Promise<NatsServerProcess> {
    const server = new NatsServerProcess(
      await freePortForTests(),
      mkdtempSync(join(tmpdir(), 'reliability-nats-')),
    );
    await server.resume();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts the server process again (same port and store); resolves once it accepts connections. */
  async resume(): Promise<void> {
    if (this.child) return;
    const child = spawn(
      NATS_SERVER,
      ['-js', '-sd', this.storeDir, '-a', '127.0.0.1', '-p', String(this.port)],
      { stdio: 'ignore' },
    );
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    for (let i = 0; i < 200; i++) {
      if (await listening(this.port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server did not listen on ${this.port}`);
  }

  /** Stops the server process (SIGTERM, then SIGKILL) and waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(force);
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
