import {
  tenantSession,
  testDb,
  sendFuzzedRequest,
  fuzzOptions,
  hostileBody,
  hostileHeaders,
  hostileQuery,
  hostileSegment,
  type BodyPath,
  type FuzzedRequest,
  tenantRowCounts,
} from '@crm/test-kit';
import fc from 'fast-check';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * Property-based: generated hostile bodies, keys, query strings, path
 * segments and headers at every integration admin route (/api/integrations/*), through the
 * real gateway. Whatever is sent: never a 5xx, and a refused (4xx) request leaves every tenant
 * table as it was. The provider receivers keep their own rules and tests (they clean what a
 * verified provider sends instead of refusing it). Seeded (FUZZ_SEED).
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

let owner: Awaited<ReturnType<typeof tenantSession>>;
let storefrontId: string;
let paymentId: string;

beforeAll(async () => {
  owner = await tenantSession(stack, database, 'owner');
  const api = request(stack.url);
  const shop = await api
    .post('/api/integrations/storefront-connections')
    .set('Cookie', owner.cookie)
    .send({ platform: 'storefront_a', shop_identifier: `f-${owner.tenantId}.example.com` });
  const payment = await api
    .post('/api/integrations/payment-connections')
    .set('Cookie', owner.cookie)
    .send({ provider: 'stripe', webhookSecret: 'whsec_fuzz' });
  expect([shop.status, payment.status]).toEqual([201, 201]);
  storefrontId = shop.body.data.connection.id;
  paymentId = payment.body.data.connection.id;
});

/** Mostly the session alone; sometimes hostile headers and cookies around it. */
const headers = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant({ cookie: owner.cookie }) },
    { weight: 1, arbitrary: hostileHeaders(owner.cookie) },
  );

const send = (req: FuzzedRequest) =>
  sendFuzzedRequest(stack.url, req, () => tenantRowCounts(database, owner.tenantId));

const RUNS = 60;
const digits = (n: number) => fc.stringMatching(new RegExp(`^[1-9][0-9]{${n - 1}}$`));

/**
 * Each write route with a generator of valid bodies (identifiers unique across tenants are
 * generated afresh, so a spoiled field is not hidden behind a 409) and the fields to spoil.
 */
const WRITES: Array<[string, () => string, fc.Arbitrary<Record<string, unknown>>]> = [
  [
    'POST',
    () => '/api/integrations/network-accounts',
    fc.uuid().map((id) => ({ external_account_id: `urn:partner:${id}`, name: 'Sales' })),
  ],
  [
    'POST',
    () => '/api/integrations/messaging-accounts',
    digits(15).map((id) => ({
      phone_number_id: id,
      display_phone_number: '+1 555 0100',
      name: 'Support',
    })),
  ],
  [
    'POST',
    () => '/api/integrations/telephony-numbers',
    digits(11).map((n) => ({ phone_number: `+${n}`, name: 'Main line' })),
  ],
  [
    'POST',
    () => '/api/integrations/storefront-connections',
    fc.uuid().map((id) => ({
      platform: 'storefront_a',
      shop_identifier: `${id}.example.com`,
      name: 'Shop',
      webhookSecret: 'shpss_secret',
    })),
  ],
  [
    'PATCH',
    () => `/api/integrations/storefront-connections/${storefrontId}`,
    fc.constant({ name: 'Shop', webhookSecret: 'shpss_other' }),
  ],
  [
    'POST',
    () => '/api/integrations/payment-connections',
    fc.constant({ provider: 'stripe', name: 'Stripe', webhookSecret: 'whsec_x' }),
  ],
  [
    'PATCH',
    () => `/api/integrations/payment-connections/${paymentId}`,
    fc.constant({ name: 'Stripe', webhookSecret: 'whsec_y' }),
  ],
];

const FIELDS: Record<string, string[]> = {
  'network-accounts': ['external_account_id', 'name'],
  'messaging-accounts': ['phone_number_id', 'display_phone_number', 'name'],
  'telephony-numbers': ['phone_number', 'name'],
  'storefront-connections': ['platform', 'shop_identifier', 'name', 'webhookSecret'],
  'payment-connections': ['provider', 'name', 'webhookSecret'],
};

describe('JSON bodies', () => {
  const label = (method: string, path: () => string) =>
    `${method} ${path().replace(/[0-9a-f-]{36}$|undefined$/, ':id')}`;
  it.each(WRITES.map(([method, path, valid]) => [label(method, path), method, path, valid]))(
    '%s',
    async (_name, method, path, valid) => {
      const resource = path().split('/')[3];
      const paths: BodyPath[] = FIELDS[resource].map((k) => [k]);
      await fc.assert(
        fc.asyncProperty(hostileBody(valid, paths), headers(), async (body, hdrs) =>
          send({ method, path: path(), headers: hdrs, body }),
        ),
        fuzzOptions(RUNS),
      );
    },
  );
});

describe('query strings, path segments, headers', () => {
  it('GET lists with hostile query strings and headers', async () => {
    const lists: Array<[string, string[]]> = [
      ['/api/integrations/network-accounts', []],
      ['/api/integrations/messaging-accounts', []],
      ['/api/integrations/telephony-numbers', []],
      ['/api/integrations/storefront-connections', ['platform']],
      ['/api/integrations/payment-connections', ['provider']],
      ['/api/integrations/inbound-events', ['provider', 'outcome']],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...lists)
          .chain(([path, params]) => fc.tuple(fc.constant(path), hostileQuery(params))),
        headers(),
        async ([path, query], hdrs) => send({ method: 'GET', path: path + query, headers: hdrs }),
      ),
      fuzzOptions(RUNS * 2),
    );
  });

  it('routes with ids, given hostile segments', async () => {
    const resources = Object.keys(FIELDS);
    const routes: Array<[string, string, string | undefined]> = [
      ...resources.flatMap((r): Array<[string, string, string | undefined]> => [
        ['GET', r, undefined],
        ['DELETE', r, undefined],
      ]),
      ['PATCH', 'storefront-connections', '{"name":"x"}'],
      ['PATCH', 'payment-connections', '{"name":"x"}'],
      ['GET', 'inbound-events', undefined],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        hostileSegment,
        async ([method, resource, body], segment) =>
          send({
            method,
            path: `/api/integrations/${resource}/${segment}`,
            headers: { cookie: owner.cookie },
            body:
              body === undefined
                ? undefined
                : { text: body, contentType: 'application/json', change: 'none' },
          }),
      ),
      fuzzOptions(RUNS * 2),
    );
  });
});
