import { request as httpRequest, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import {
  createDb,
  dropDatabase,
  ensureDatabase,
  withDatabase,
  withSystemScope,
} from '@crm/shared/db';
import { IDENTITY_HEADER, signIdentity } from '@crm/shared/identity';
import {
  createTenant,
  createUser,
  eventually,
  freePortForTests,
  runServiceProcess,
} from '@crm/test-kit';

/*
 * What an orchestrator relies on (Kubernetes sends SIGTERM, then SIGKILL after the grace
 * period): crm-api, started alone as in its image, gets SIGTERM while a lead import is in
 * flight. It stops taking new connections (readiness is off), lets the import finish and
 * answer, then exits 0. The request is held open deterministically: the client asks
 * `Expect: 100-continue`, so the server has the request (headers parsed, handler running) when
 * the client sees `100 Continue`; the body is sent only after the service has logged that it
 * is shutting down.
 */
const natsUrl = process.env.TEST_NATS_URL;
const LEADS = 2000;

(natsUrl ? describe : describe.skip)('crm-api on SIGTERM with a lead import in flight', () => {
  // A database of its own: the service runs the outbox relay, which publishes every pending
  // event it can see; here that is this test's events alone.
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? '';
  const template = process.env.TEST_TEMPLATE_DATABASE ?? '';
  const name = `${template.replace(/_tpl$/, '')}_sigterm_${randomUUID().slice(0, 8)}`;
  const url = withDatabase(adminUrl, name);
  const database = (() => {
    let db: ReturnType<typeof createDb> | undefined;
    return () => (db ??= createDb({ connectionString: url, maxConnections: 2 }));
  })();

  beforeAll(async () => {
    await ensureDatabase(adminUrl, name, template);
  });
  afterAll(async () => {
    await database().close();
    await dropDatabase(adminUrl, name);
  });

  it('finishes the import, answers it, refuses new connections, and exits 0', async () => {
    const tenant = await createTenant(database());
    const user = await createUser(database());
    const secret = 'sigterm-test-secret-0123456789abcdef';
    const port = await freePortForTests();
    const body = JSON.stringify({
      leads: Array.from({ length: LEADS }, (_, i) => ({
        email: `lead-${i}@sigterm.example`,
        first_name: `Lead ${i}`,
      })),
    });
    let response: { status: number; body: { imported?: number; failed?: number } } | undefined;
    let readyAfterSignal: string | undefined;

    const result = await runServiceProcess(
      'crm-api',
      {
        DATABASE_URL: url,
        NATS_URL: natsUrl ?? '',
        INTERNAL_TOKEN_SECRET: secret,
        CRM_API_PORT: String(port),
        HOST: '127.0.0.1',
        // Room for a loaded test machine; the import itself takes well under a second.
        SHUTDOWN_TIMEOUT_MS: '20000',
      },
      async ({ stdout, kill }) => {
        await eventually(() => expect(stdout()).toContain('crm-api listening'), 20_000, 50);
        expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);

        const req = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/import/leads',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            expect: '100-continue',
            [IDENTITY_HEADER]: signIdentity(
              { userId: user.id, tenantId: tenant.id, role: 'admin' },
              secret,
              { ttlSeconds: 600 },
            ),
          },
        });
        const answered = new Promise<IncomingMessage>((resolve, reject) => {
          req.on('response', resolve);
          req.on('error', reject);
        });
        // The server has the request in hand: its handler is running, waiting for the body.
        await new Promise<void>((resolve) => req.once('continue', () => resolve()));

        kill('SIGTERM');
        await eventually(() => expect(stdout()).toContain('"msg":"shutting down"'), 10_000, 20);
        // Not ready any more: a new connection is refused (listener closed) or answered 503.
        readyAfterSignal = await fetch(`http://127.0.0.1:${port}/ready`).then(
          (res) => `status ${res.status}`,
          () => 'refused',
        );

        req.end(body);
        const res = await answered;
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        response = {
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        };
      },
    );

    expect(readyAfterSignal).toMatch(/^(refused|status 503)$/);
    expect(response).toEqual({
      status: 200,
      body: expect.objectContaining({ success: true, imported: LEADS, failed: 0 }),
    });
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    const messages = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages.indexOf('shutting down')).toBeGreaterThan(-1);
    expect(messages.indexOf('request completed')).toBeGreaterThan(
      messages.indexOf('shutting down'),
    );
    expect(messages.at(-1)).toBe('stopped');

    const stored = await withSystemScope(database().db, (trx) =>
      trx
        .selectFrom('crm_leads')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('tenant_id', '=', tenant.id)
        .executeTakeFirstOrThrow(),
    );
    expect(Number(stored.n)).toBe(LEADS);
  }, 60_000);
});
