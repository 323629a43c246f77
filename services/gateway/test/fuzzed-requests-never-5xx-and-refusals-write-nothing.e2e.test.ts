import type { Db } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  createTenant,
  type EchoService,
  isolatedTestDb,
  PASSWORD,
  signIn,
  startEchoService,
  testGateway,
  type TestGateway,
  upstreamsAt,
  sendFuzzedRequest,
  fuzzOptions,
  hostileBody,
  hostileHeaders,
  hostileQuery,
  hostileSegment,
  type BodyPath,
  type FuzzedRequest,
  allRowCounts,
} from '@crm/test-kit';
import fc from 'fast-check';

/**
 * Property-based: generated hostile bodies, keys, query strings, path
 * segments, headers and cookies at the gateway's own JSON routes (sign-up, sign-in, sign-out,
 * me, active tenant, members, invitations) and at its session chain in front of proxied routes (an echo
 * service stands in for every upstream). Whatever is sent: never a 5xx, and a refused (4xx)
 * request writes no row in any table (the database is this file's own; the rate-limit
 * counters, which count refused attempts on purpose, are left out). Seeded (FUZZ_SEED).
 */
let database: Db;
let gateway: TestGateway;
let echo: EchoService;
let cookie: string;
let ownerEmail: string;
let tenantId: string;
let memberId: string;

beforeAll(async () => {
  database = await isolatedTestDb();
  echo = await startEchoService();
  gateway = testGateway(upstreamsAt(echo.url), {
    db: database.db,
    pool: database.pool,
    pingDatabase: database.ping,
  });
  const tenant = await createTenant(database);
  tenantId = tenant.id;
  const owner = await createAccount(database, 'owner');
  ownerEmail = owner.email;
  await addMember(database, tenant.id, owner.id, 'owner');
  const member = await createAccount(database, 'member');
  memberId = member.id;
  await addMember(database, tenant.id, member.id, 'member');
  cookie = await signIn(gateway.app, owner.email);
});

afterAll(async () => {
  await gateway.close();
  await echo.close();
  await database.close();
});

const counts = () => allRowCounts(database, ['rate_limits']);

const send = (req: FuzzedRequest) => sendFuzzedRequest(gateway.app, req, counts);

/** Mostly the session alone; sometimes hostile headers and cookies around it. */
const sessionHeaders = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant({ cookie }) },
    { weight: 1, arbitrary: hostileHeaders(cookie) },
  );

function bodyProperty(
  method: string,
  path: string,
  valid: Record<string, unknown> | fc.Arbitrary<Record<string, unknown>>,
  headers: fc.Arbitrary<Record<string, string>>,
  fields?: string[],
) {
  const paths: BodyPath[] = (fields ?? Object.keys(valid)).map((k) => [k]);
  return fc.asyncProperty(hostileBody(valid, paths), headers, async (body, hdrs) =>
    send({ method, path, headers: hdrs, body }),
  );
}

const RUNS = 60;

describe('the gateway own JSON routes', () => {
  it('POST /api/auth/sign-up (no session)', async () => {
    // A new email each time, so a spoiled field is not hidden behind 409 ALREADY_EXISTS.
    const valid = fc.uuid().map((id) => ({
      email: `${id}@example.test`,
      password: 'long enough password',
      name: 'Fuzz',
      tenantName: 'Fuzzed',
    }));
    await fc.assert(
      bodyProperty('POST', '/api/auth/sign-up', valid, hostileHeaders(), [
        'email',
        'password',
        'name',
        'tenantName',
      ]),
      fuzzOptions(RUNS),
    );
  });

  it('POST /api/auth/sign-in (no session)', async () => {
    await fc.assert(
      bodyProperty(
        'POST',
        '/api/auth/sign-in',
        { email: ownerEmail, password: PASSWORD },
        hostileHeaders(),
      ),
      fuzzOptions(RUNS),
    );
  });

  it('POST /api/auth/active-tenant', async () => {
    await fc.assert(
      bodyProperty('POST', '/api/auth/active-tenant', { tenantId }, sessionHeaders()),
      fuzzOptions(RUNS),
    );
  });

  it('POST /api/auth/members', async () => {
    await fc.assert(
      bodyProperty(
        'POST',
        '/api/auth/members',
        { email: 'invited@example.test', role: 'member' },
        sessionHeaders(),
      ),
      fuzzOptions(RUNS),
    );
  });

  it('PATCH /api/auth/members/:userId', async () => {
    await fc.assert(
      bodyProperty(
        'PATCH',
        `/api/auth/members/${memberId}`,
        { role: 'member', status: 'active' },
        sessionHeaders(),
      ),
      fuzzOptions(RUNS),
    );
  });
});

describe('query strings, path segments, headers and cookies', () => {
  it('GET /api/auth/me, POST /api/auth/sign-out (junk cookies only) and the members list', async () => {
    const routes: Array<[string, string, boolean]> = [
      ['GET', '/api/auth/me', true],
      ['GET', '/api/auth/members', true],
      ['GET', '/api/auth/invitations', true],
      // Sign-out with the real session would end it for the rest of the file.
      ['POST', '/api/auth/sign-out', false],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        hostileQuery(['tenantId']),
        fc.oneof(sessionHeaders(), hostileHeaders()),
        async ([method, path, withSession], query, hdrs) => {
          const headers = withSession ? hdrs : hostileHeadersWithout(hdrs);
          await send({ method, path: path + query, headers });
        },
      ),
      fuzzOptions(RUNS * 2),
    );
  });

  it('routes with ids (members, invitations), given hostile segments', async () => {
    const routes: Array<[string, (segment: string) => string, string | undefined]> = [
      ['PATCH', (s) => `/api/auth/members/${s}`, '{"role":"member"}'],
      ['DELETE', (s) => `/api/auth/members/invitations/${s}`, undefined],
      ['DELETE', (s) => `/api/auth/members/${s}`, undefined],
      ['POST', (s) => `/api/auth/invitations/${s}/accept`, '{}'],
      ['POST', (s) => `/api/auth/invitations/${s}/decline`, undefined],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), hostileSegment, async ([method, at, body], s) =>
        send({
          method,
          path: at(s),
          headers: { cookie },
          body:
            body === undefined
              ? undefined
              : { text: body, contentType: 'application/json', change: 'none' },
        }),
      ),
      fuzzOptions(RUNS * 2),
    );
  });

  it('the session chain before proxied routes (Session and Public prefixes)', async () => {
    const paths = [
      '/api/crm/leads',
      '/api/crm/deals/x',
      '/api/integrations/network-accounts',
      '/api/automations',
      '/api/mcp/keys',
      '/api/public/forms/t/f/submit',
      '/api/exports',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom('GET', 'POST'),
        hostileQuery(['q', 'stage']),
        fc.oneof(sessionHeaders(), hostileHeaders()),
        async (path, method, query, headers) => send({ method, path: path + query, headers }),
      ),
      fuzzOptions(RUNS * 2),
    );
  });
});

/** The same headers without the real session cookie (junk cookies stay). */
function hostileHeadersWithout(headers: Record<string, string>): Record<string, string> {
  const rest = { ...headers };
  if (rest.cookie !== undefined) {
    rest.cookie = rest.cookie
      .split('; ')
      .filter((c) => !cookie.split('; ').includes(c))
      .join('; ');
    if (!rest.cookie) delete rest.cookie;
  }
  return rest;
}
