import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/*
 * deploy/Dockerfile, read as text (no Docker daemon here): one multi-stage recipe for every
 * service chosen by the SERVICE build argument, a Node LTS base, production dependencies only
 * in the final stage, a non-root user, an exec-form start (node as PID 1 gets SIGTERM) and a
 * HEALTHCHECK; and deploy/healthcheck.js, which that HEALTHCHECK and docker-compose run,
 * against a real local HTTP server.
 */
const ROOT = join(__dirname, '..', '..');
const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
/** Instructions, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));
const stages = instructions.filter((line) => /^FROM /i.test(line));
const runtimeStart = instructions.findIndex((line) => /^FROM \S+ AS runtime$/i.test(line));
const runtime = instructions.slice(runtimeStart);

describe('deploy/Dockerfile', () => {
  it('is multi-stage, on Node 22 or 24 LTS, and the final stage is `runtime`', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(stages.at(-1)).toMatch(/ AS runtime$/);
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    expect(base).toMatch(/^node:(22|24)(\.\d+)*-(bookworm|trixie)-slim$/);
  });

  it('builds any service by SERVICE and refuses an unknown one', () => {
    expect(runtime).toContain('ARG SERVICE');
    const check = runtime.find((line) => line.startsWith('RUN case "${SERVICE}" in'));
    for (const name of [
      'gateway',
      'crm-api',
      'webhook-ingest',
      'automation',
      'mcp-ingest',
      'migrate',
    ]) {
      expect(check).toContain(name);
    }
    expect(check).toContain('exit 1');
    expect(runtime).toContain(
      'COPY --from=build /app/services/${SERVICE}/dist services/${SERVICE}/dist',
    );
  });

  it('ships production dependencies only, from a clean `npm ci --omit=dev`', () => {
    const prodDeps = instructions.slice(
      instructions.findIndex((line) => / AS prod-deps$/.test(line)),
      runtimeStart,
    );
    expect(prodDeps.join('\n')).toMatch(/npm ci --omit=dev/);
    // Only the service's own workspace and the libs: no other service's dependencies.
    expect(prodDeps).toContain('ARG SERVICE');
    for (const workspace of ['"services/${SERVICE}"', 'libs/shared', 'libs/records']) {
      expect(prodDeps.join('\n')).toContain(`--workspace ${workspace}`);
    }
    expect(runtime).toContain('COPY --from=prod-deps /app ./');
    // Nothing from the full install (dev dependencies) reaches the final stage but compiled output.
    const fromBuild = runtime.filter((line) => line.startsWith('COPY --from=build'));
    for (const line of fromBuild) expect(line).toMatch(/\/dist /);
    expect(runtime.join('\n')).toMatch(/ENV NODE_ENV=production/);
  });

  it('runs as a numeric non-root user, node as PID 1 in exec form, with a HEALTHCHECK', () => {
    const user = runtime.find((line) => line.startsWith('USER '));
    expect(user).toMatch(/^USER [1-9]\d*:[1-9]\d*$/);
    expect(runtime.at(-1)).toBe('CMD ["node", "--max-semi-space-size=8", "dist/main.js"]');
    const healthcheck = runtime.find((line) => line.startsWith('HEALTHCHECK '));
    expect(healthcheck).toMatch(/CMD \["node", "\/app\/healthcheck\.js", "\/health"\]$/);
    expect(runtime).toContain('COPY deploy/healthcheck.js /app/healthcheck.js');
    // The user is set before the HEALTHCHECK and CMD: they run unprivileged too.
    expect(runtime.indexOf(user!)).toBeLessThan(runtime.indexOf(healthcheck!));
  });

  it('keeps tests, docs and host installs out of the build context (.dockerignore)', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '**/test', '.git', '**/.env']) {
      expect(ignored).toContain(entry);
    }
    expect(ignored).not.toContain('deploy/healthcheck.js');
  });
});

describe('deploy/healthcheck.js', () => {
  let server: Server;
  let port: number;
  const answers: Record<string, number> = { '/health': 200, '/ready': 503 };
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.statusCode = answers[req.url ?? ''] ?? 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  function run(args: string[], env: Record<string, string>): Promise<number | null> {
    const child = spawn(process.execPath, [join(ROOT, 'deploy', 'healthcheck.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: 'ignore',
    });
    return new Promise((resolve) => child.on('exit', resolve));
  }

  it("asks the service's own port (SERVICE and its port variable) and exits 0 on 2xx", async () => {
    expect(await run([], { SERVICE: 'crm-api', CRM_API_PORT: String(port) })).toBe(0);
    expect(await run(['/health'], { SERVICE: 'gateway', GATEWAY_PORT: String(port) })).toBe(0);
  });

  it('exits 1 on 503, and on a refused connection', async () => {
    expect(await run(['/ready'], { SERVICE: 'automation', AUTOMATION_PORT: String(port) })).toBe(1);
    // A port nothing listens on: refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await run(['/health'], { SERVICE: 'migrate', MIGRATE_PORT: String(closedPort) })).toBe(
      1,
    );
  });

  it('exits 2 without a known SERVICE', async () => {
    expect(await run([], {})).toBe(2);
    expect(await run([], { SERVICE: 'nope' })).toBe(2);
  });
});
