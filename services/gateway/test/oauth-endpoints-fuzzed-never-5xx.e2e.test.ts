import type { Db } from '@crm/shared/db';
import {
  addMember,
  allRowCounts,
  createAccount,
  createTenant,
  sendFuzzedRequest,
  fuzzOptions,
  hostileBody,
  hostileHeaders,
  hostileQuery,
  hostileSegment,
  hostileText,
  isolatedTestDb,
  signIn,
  testGateway,
  type FuzzedRequest,
  type TestGateway,
} from '@crm/test-kit';
import fc from 'fast-check';
import { pkcePair, REDIRECT_URI, registerClient, startAuthorization } from './oauth-flow';

/**
 * Property-based: hostile JSON (registration, the consent decision), form bodies (token,
 * revocation), query strings (authorize) and path segments (the consent routes) at the
 * authorization server. Whatever is sent: never a 5xx, every refusal has an error body, and a
 * refused request writes no row (the database is this file's own; rate-limit counters, which
 * count refused attempts on purpose, are left out). The codes and tokens in the valid forms are
 * well formed but unknown, so no request can use one up (which writes, by design, on a 400).
 */
let database: Db;
let gateway: TestGateway;
let cookie: string;
let tenantId: string;
let clientId: string;

beforeAll(async () => {
  database = await isolatedTestDb();
  gateway = testGateway(
    {},
    { db: database.db, pool: database.pool, pingDatabase: database.ping },
    // No document is ever fetched from the network here.
    { fetchClientDocument: () => Promise.reject(new Error('no network in this test')) },
  );
  const owner = await createAccount(database, 'fuzz-owner');
  tenantId = (await createTenant(database, 'Fuzz OAuth')).id;
  await addMember(database, tenantId, owner.id, 'owner');
  cookie = await signIn(gateway.app, owner.email);
  clientId = await registerClient(gateway.app);
});

afterAll(async () => {
  await gateway.close();
  await database.close();
});

const counts = () => allRowCounts(database, ['rate_limits']);

const send = (req: FuzzedRequest) => sendFuzzedRequest(gateway.app, req, counts);

const RUNS = 60;
const UNKNOWN_CODE = `crm_oac_${'A'.repeat(43)}`;
const UNKNOWN_REFRESH = `crm_ort_${'B'.repeat(43)}`;

/**
 * Form bodies: a valid form with one field spoiled by hostile text, or a raw form of odd names,
 * broken escapes, encoded NUL and repeated names.
 */
function hostileForm(valid: Record<string, string>): fc.Arbitrary<FuzzedRequest['body']> {
  const names = Object.keys(valid);
  const spoiled = fc
    .tuple(fc.constantFrom(...names), hostileText)
    .map(([name, value]) => new URLSearchParams({ ...valid, [name]: value }).toString());
  const raw = hostileQuery(names).map((query) => query.slice(1));
  return fc
    .tuple(
      fc.oneof({ weight: 3, arbitrary: spoiled }, { weight: 2, arbitrary: raw }),
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=utf-8',
        'application/json',
        'text/plain',
      ),
    )
    .map(([text, contentType]) => ({ text, contentType, change: 'form' }));
}

function formProperty(path: string, valid: Record<string, string>) {
  return fc.asyncProperty(hostileForm(valid), hostileHeaders(), async (body, headers) =>
    send({ method: 'POST', path, body, headers }),
  );
}

describe('the OAuth protocol endpoints', () => {
  it('POST /api/oauth/register', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileBody(
          {
            redirect_uris: ['https://agent.example/cb'],
            client_name: 'Fuzz',
            token_endpoint_auth_method: 'none',
          },
          [
            ['redirect_uris'],
            ['redirect_uris', 0],
            ['client_name'],
            ['token_endpoint_auth_method'],
          ],
        ),
        hostileHeaders(),
        async (body, headers) =>
          send({ method: 'POST', path: '/api/oauth/register', body, headers }),
      ),
      fuzzOptions(RUNS),
    );
  });

  it('POST /api/oauth/token (authorization_code)', async () => {
    await fc.assert(
      formProperty('/api/oauth/token', {
        grant_type: 'authorization_code',
        code: UNKNOWN_CODE,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        code_verifier: pkcePair().verifier,
        resource: 'http://localhost:8080/api/mcp',
      }),
      fuzzOptions(RUNS),
    );
  });

  it('POST /api/oauth/token (refresh_token)', async () => {
    await fc.assert(
      formProperty('/api/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: UNKNOWN_REFRESH,
        client_id: clientId,
        scope: 'mcp:read:leads',
      }),
      fuzzOptions(RUNS),
    );
  });

  it('POST /api/oauth/revoke', async () => {
    await fc.assert(
      formProperty('/api/oauth/revoke', {
        token: UNKNOWN_REFRESH,
        token_type_hint: 'refresh_token',
        client_id: clientId,
      }),
      fuzzOptions(RUNS),
    );
  });

  it('GET /api/oauth/authorize', async () => {
    const { challenge } = pkcePair();
    await fc.assert(
      fc.asyncProperty(
        hostileQuery([
          'client_id',
          'redirect_uri',
          'response_type',
          'code_challenge',
          'code_challenge_method',
          'scope',
          'state',
          'resource',
        ]),
        fc.constantFrom(
          '',
          `client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&`,
          `client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&code_challenge=${challenge}&code_challenge_method=S256&response_type=code&`,
        ),
        async (query, prefix) =>
          send({ method: 'GET', path: `/api/oauth/authorize?${prefix}${query.slice(1)}` }),
      ),
      fuzzOptions(RUNS * 2),
    );
  });
});

describe('the consent routes', () => {
  it('POST /api/auth/oauth/requests/:id/decision, hostile bodies', async () => {
    const { requestId } = await startAuthorization(gateway.app, clientId);
    await fc.assert(
      fc.asyncProperty(
        // Approvals for a tenant id that is spoiled, so none succeeds and uses the request up.
        hostileBody({ decision: 'approve', tenant_id: tenantId }, [['tenant_id']]),
        async (body) =>
          send({
            method: 'POST',
            path: `/api/auth/oauth/requests/${requestId}/decision`,
            headers: { cookie },
            body,
          }),
      ),
      fuzzOptions(RUNS),
    );
  });

  it('GET and POST with hostile request ids', async () => {
    await fc.assert(
      fc.asyncProperty(hostileSegment, fc.boolean(), async (segment, post) =>
        send(
          post
            ? {
                method: 'POST',
                path: `/api/auth/oauth/requests/${segment}/decision`,
                headers: { cookie },
                body: { text: '{"decision":"deny"}', contentType: 'application/json', change: '' },
              }
            : { method: 'GET', path: `/api/auth/oauth/requests/${segment}`, headers: { cookie } },
        ),
      ),
      fuzzOptions(RUNS),
    );
  });
});
