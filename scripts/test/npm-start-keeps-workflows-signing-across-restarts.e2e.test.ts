import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'svix';
import { eventually } from '../../libs/shared/src/testing';
import { cookieHeader } from '../../libs/test-kit/src';
import { startReceiver, type Receiver } from '../../services/automation/test/support/receiver';
import {
  freeServicePorts,
  freshDatabase,
  jsonLines,
  startAll,
  type Started,
} from './support/start-all-process';

/**
 * `npm start` made its internal secrets up at random on every run: after a restart every stored
 * workflow secret was unreadable (`signing secret unreadable`), and webhooks to a receiver on the
 * same machine were blocked. Its development profile keeps the secrets in DEV_DATA_DIR and lets
 * webhooks reach loopback, so a workflow saved before a restart still signs and sends after it.
 */
let dataDir: string;
let receiver: Receiver;
let database: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  receiver = await startReceiver('127.0.0.1');
});
afterAll(() => receiver.close());
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'npm-start-restart-'));
  database = await freshDatabase();
});
afterEach(async () => {
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function signIn(gateway: string): Promise<string> {
  const res = await fetch(`${gateway}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'demo@example.com', password: 'demo-password' }),
  });
  expect(res.status).toBe(200);
  return cookieHeader(res.headers.getSetCookie());
}

/** One `npm start` on the test's database and data directory: `use` it, then SIGTERM it. */
async function oneStart(
  ports: Record<string, string>,
  use: (gateway: string) => Promise<void>,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<Started> {
  const gateway = `http://127.0.0.1:${ports.GATEWAY_PORT}`;
  return startAll(
    { DATABASE_URL: database.url, DEV_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...ports },
    async (stdout, kill) => {
      await eventually(() => expect(stdout()).toContain('CRM platform is running'), 60_000, 100);
      try {
        await use(gateway);
      } finally {
        kill(signal);
      }
    },
  );
}

/** Exit 0, no error logged, and nothing at all above info once the stop began. */
function expectCleanRun(run: Started): void {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const lines = jsonLines(run.stdout);
  expect(lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
  const stopping = lines.findIndex((l) => l.msg === 'shutting down');
  expect(stopping).toBeGreaterThan(0);
  expect(lines.slice(stopping).filter((l) => l.level !== 'info')).toEqual([]);
  expect(lines.map((l) => l.msg)).toContain('every service stopped');
}

describe('npm start, restarted on the same database', () => {
  it('a workflow created before the restart still signs and sends to a receiver on 127.0.0.1', async () => {
    const ports = await freeServicePorts();
    let workflowId = '';
    let signingSecret = '';
    const first = await oneStart(ports, async (gateway) => {
      const cookie = await signIn(gateway);
      const res = await fetch(`${gateway}/api/automations/workflows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({
          name: 'to the local receiver',
          enabled: true,
          trigger: { event: 'lead.created' },
          nodes: [
            {
              type: 'webhook',
              name: 'notify',
              config: { url: `${receiver.url}/hook`, method: 'POST' },
            },
          ],
        }),
      });
      const body = (await res.json()) as {
        data: { workflow: { id: string }; signing_secret: string };
      };
      expect(res.status).toBe(201);
      workflowId = body.data.workflow.id;
      signingSecret = body.data.signing_secret;
    });
    expectCleanRun(first);
    const secretsFile = join(dataDir, 'dev-secrets.json');
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const stored = readFileSync(secretsFile, 'utf8');

    let run:
      { status: string; steps: Array<{ status: string; response_status: number }> } | undefined;
    const second = await oneStart(
      ports,
      async (gateway) => {
        const cookie = await signIn(gateway);
        const res = await fetch(`${gateway}/api/automations/workflows/${workflowId}/test`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie },
          body: JSON.stringify({
            module: 'leads',
            record: { id: 'sample-1', email: 'ann@example.com', status: 'new' },
          }),
        });
        expect(res.status).toBe(200);
        run = ((await res.json()) as { data: { run: typeof run } }).data.run;
      },
      'SIGINT',
    );
    expectCleanRun(second);
    expect(readFileSync(secretsFile, 'utf8')).toBe(stored);

    expect(run).toMatchObject({
      status: 'success',
      steps: [{ status: 'success', response_status: 200 }],
    });
    const delivered = receiver.received.filter((r) => r.path === '/hook');
    expect(delivered).toHaveLength(1);
    const [request] = delivered;
    // Verified with the secret answered at creation, as the receiver's owner would.
    const payload = new Webhook(signingSecret).verify(
      request!.body,
      request!.headers as Record<string, string>,
    ) as { record_id: string; variables: { record: { email: string } } };
    expect(payload.variables.record.email).toBe('ann@example.com');

    // Off a terminal nothing prints a development secret, not even the migrate command.
    const secrets = Object.values(JSON.parse(stored) as Record<string, string>);
    for (const output of [first.stdout, second.stdout]) {
      for (const secret of secrets) expect(output).not.toContain(secret);
    }
    const running = jsonLines(second.stdout).find((l) => l.msg === 'CRM platform is running');
    expect(running).toMatchObject({
      migratePush: `SVC_MIGRATE_SIGNING_SECRET="$(node -p 'require(${JSON.stringify(secretsFile)}).SVC_MIGRATE_SIGNING_SECRET')" npm run migrate:push -- --url http://localhost:${ports.GATEWAY_PORT} --tenant demo --source hubspot --entity leads --file leads.ndjson`,
      profile: { secretsFile, fromEnvironment: [], outboundPrivateNetworks: true },
    });
  }, 180_000);
});

describe('npm start with its embedded Postgres (no DATABASE_URL)', () => {
  it('Ctrl-C (SIGINT to the whole process group) stops everything with nothing above info logged', async () => {
    const ports = await freeServicePorts(['EMBEDDED_PG_PORT']);
    // Run as root, the embedded Postgres runs as the postgres user: it must reach its directory.
    chmodSync(dataDir, 0o755);
    const result = await startAll(
      {
        DEV_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        ...ports,
      },
      async (stdout, _kill, killGroup) => {
        await eventually(() => expect(stdout()).toContain('CRM platform is running'), 90_000, 100);
        // A session, so the gateway's session cache holds its LISTEN connection.
        await signIn(`http://127.0.0.1:${ports.GATEWAY_PORT}`);
        killGroup('SIGINT');
      },
    );
    expectCleanRun(result);
    expect(result.stdout).not.toContain('terminating connection');
  }, 180_000);
});

describe('npm start under NODE_ENV=production', () => {
  it('refuses to start without its secrets: one line, exit 1, no secrets file', async () => {
    const result = await startAll(
      {
        NODE_ENV: 'production',
        DATABASE_URL: database.url,
        DEV_DATA_DIR: dataDir,
        ...(await freeServicePorts()),
      },
      async () => undefined,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'npm start: NODE_ENV=production runs without the development profile: set INTERNAL_TOKEN_SECRET, AUTOMATION_SECRETS_KEY, CONNECTION_SECRETS_KEY (32+ characters each)\n',
    );
    expect(() => statSync(join(dataDir, 'dev-secrets.json'))).toThrow();
  }, 60_000);
});
