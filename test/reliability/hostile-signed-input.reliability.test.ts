import { createHmac } from 'node:crypto';
import { validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { allRowCounts } from '@crm/shared/testing';
import {
  fuzzOptions,
  hostileBody,
  hostileJsonText,
  hostileText,
  type BodyPath,
  type HostileBody,
} from '@crm/shared/testing/hostile-input';
import { ownDatabase, type OwnDatabase } from './support/database';
import { recordFigure, StatusTally } from './support/figures';
import { NatsServerProcess } from './support/nats-server';
import {
  connectNetworkAccount,
  MIGRATE_PATH,
  Platform,
  signedInOwner,
  signEmail,
  signMigrate,
  signNetwork,
  PROVIDER_SECRETS,
  type Session,
} from './support/platform';

/*
 * Hostile input at what providers, migration tools and agents call: hostile requests through
 * the gateway at the webhook-ingest, migrate and mcp-ingest processes. The signed routes get
 * bodies that are correctly signed, so the hostile part reaches the parsing and the writes
 * behind the signature check: network deliveries, migrate ingest calls, MCP tool calls with a
 * valid key, and billing, email and messaging deliveries, each in its provider's own scheme.
 * Every receiver also gets hostile bodies with forged signature headers. Never a 5xx,
 * no process dies, and a refused (4xx) request writes no row anywhere in the database.
 */
const TEST = '5 hostile input (receivers, migrate, MCP)';
const RUNS = 100;

const RECEIVERS: Array<{ path: string; signatureHeaders: string[] }> = [
  { path: '/api/webhooks/network', signatureHeaders: ['x-network-signature'] },
  { path: '/api/webhooks/billing', signatureHeaders: ['billing-signature'] },
  {
    path: '/api/webhooks/email',
    signatureHeaders: ['email-webhook-id', 'email-webhook-timestamp', 'email-webhook-signature'],
  },
  { path: '/api/messaging/webhooks/cloud-api', signatureHeaders: ['x-hub-signature-256'] },
  { path: '/api/communications/webhooks', signatureHeaders: ['x-telephony-signature'] },
  { path: '/api/payments/webhook', signatureHeaders: ['webhook-signature'] },
  {
    path: '/api/commerce/webhook/storefront-a',
    signatureHeaders: ['x-storefront-a-hmac-sha256'],
  },
  {
    path: '/api/commerce/webhook/storefront-b',
    signatureHeaders: ['x-storefront-b-webhook-signature'],
  },
];

/** Signature header values that look almost right, and anything sendable. */
const forgedSignature = fc
  .oneof(
    fc.constantFrom('t=1,v1=00', 'sha256=00', 'v1,AAAA', 'v1=', '', 't=9999999999,v1=zz'),
    hostileText,
  )
  .filter((value) => {
    try {
      validateHeaderValue('x-signature', value);
      return true;
    } catch {
      return false;
    }
  });

interface Sent {
  path: string;
  body: HostileBody;
  status: number;
  answer: string;
}

describe('hostile requests through the gateway at webhook-ingest, migrate and mcp-ingest', () => {
  let nats: NatsServerProcess;
  let database: OwnDatabase;
  let platform: Platform;
  let session: Session;
  let networkAccount: string;
  let apiKey: string;
  const statuses = new Map<string, StatusTally>();

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    database = await ownDatabase('hostile_signed');
    platform = await Platform.start({ DATABASE_URL: database.url, NATS_URL: nats.url }, [
      'webhook-ingest',
      'migrate',
      'mcp-ingest',
    ]);
    session = await signedInOwner(database.db, platform);
    networkAccount = await connectNetworkAccount(database.db, session.tenantId);
    const key = await fetch(`${platform.url}/api/mcp/keys`, {
      method: 'POST',
      headers: session.headers,
      body: JSON.stringify({
        name: 'fuzz',
        scopes: ['mcp:ingest:leads', 'mcp:ingest:contacts', 'mcp:ingest:products'],
      }),
    });
    expect(key.status).toBe(201);
    apiKey = ((await key.json()) as { data: { api_key: string } }).data.api_key;
  });
  afterAll(async () => {
    for (const [route, counts] of statuses) {
      recordFigure(TEST, `statuses: ${route}`, String(counts));
    }
    await platform?.stop();
    await nats?.close();
    await database?.drop();
  });

  /**
   * Sends one request and holds it to the properties. `except`: tables a refused request may
   * write by design (migrate records a signed request's nonce before it reads the body, so a
   * replay of that exact request is refused as one).
   */
  async function send(
    route: string,
    path: string,
    body: HostileBody,
    headers: Record<string, string>,
    except: string[] = [],
  ): Promise<void> {
    const before = await allRowCounts(database.db, except);
    const res = await fetch(`${platform.url}${path}`, {
      method: 'POST',
      headers: { ...(body.contentType ? { 'content-type': body.contentType } : {}), ...headers },
      body: body.text,
    });
    const sent: Sent = { path, body, status: res.status, answer: (await res.text()).slice(0, 300) };
    const counts = statuses.get(route) ?? new StatusTally();
    counts.add(res.status);
    statuses.set(route, counts);
    expect({ ...sent, fiveHundred: res.status >= 500 }).toEqual({ ...sent, fiveHundred: false });
    if (res.status >= 400) {
      expect({ sent, rows: await allRowCounts(database.db, except) }).toEqual({
        sent,
        rows: before,
      });
    }
  }

  it('signed network deliveries with hostile bodies', async () => {
    const valid = {
      id: 'evt-fuzz',
      type: 'INVITATION_SENT',
      account_id: networkAccount,
      occurred_at: '2026-11-25T10:00:00Z',
      actor: { name: 'Ann', profile_url: 'https://network.example/in/ann' },
    };
    await fc.assert(
      fc.asyncProperty(
        hostileBody(
          valid,
          [['id'], ['type'], ['account_id'], ['occurred_at'], ['actor'], ['actor', 'name']],
          [[], ['actor']],
        ),
        async (body) => {
          const { 'content-type': _ignored, ...signature } = signNetwork(body.text);
          await send('network (signed)', '/api/webhooks/network', body, signature);
        },
      ),
      fuzzOptions(RUNS),
    );
  });

  it('signed migrate ingest calls with hostile bodies', async () => {
    const valid = {
      tenant: session.tenantSlug,
      source_system: 'hubspot',
      entity: 'leads',
      records: [{ external_id: 'h-1', email: 'ann@fuzz.example', first_name: 'Ann' }],
    };
    await fc.assert(
      fc.asyncProperty(
        hostileBody(
          valid,
          [
            ['tenant'],
            ['source_system'],
            ['entity'],
            ['records'],
            ['records', 0],
            ['records', 0, 'external_id'],
            ['records', 0, 'email'],
          ],
          [[], ['records', 0]],
        ),
        async (body) => {
          const { 'content-type': _ignored, ...signature } = signMigrate(body.text);
          await send('migrate (signed)', MIGRATE_PATH, body, signature, ['migrate_nonces']);
        },
      ),
      fuzzOptions(RUNS),
    );
  });

  it('MCP calls with a valid key and hostile JSON-RPC', async () => {
    const valid = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'ingest_leads',
        arguments: { records: [{ email: 'agent@fuzz.example', first_name: 'Agent' }] },
      },
    };
    await fc.assert(
      fc.asyncProperty(
        hostileBody(
          valid,
          [
            ['jsonrpc'],
            ['id'],
            ['method'],
            ['params'],
            ['params', 'name'],
            ['params', 'arguments'],
            ['params', 'arguments', 'records'],
            ['params', 'arguments', 'records', 0],
            ['params', 'arguments', 'records', 0, 'email'],
          ],
          [[], ['params'], ['params', 'arguments'], ['params', 'arguments', 'records', 0]],
        ),
        async (body) => {
          await send('mcp (valid key)', '/api/mcp', body, {
            authorization: `Bearer ${apiKey}`,
            accept: 'application/json, text/event-stream',
          });
        },
      ),
      fuzzOptions(RUNS),
    );
  });

  /** Correctly signed deliveries of three more receivers, one signature scheme each. */
  const SIGNED_RECEIVERS: Array<{
    route: string;
    path: string;
    valid: Record<string, unknown>;
    fields: BodyPath[];
    objects: BodyPath[];
    sign: (text: string) => Record<string, string>;
  }> = [
    {
      route: 'billing (signed)',
      path: '/api/webhooks/billing',
      valid: {
        id: 'evt_fuzz',
        object: 'event',
        created: 1764151200,
        type: 'customer.subscription.updated',
        data: {
          object: { id: 'sub_fuzz', object: 'subscription', status: 'active', metadata: {} },
        },
      },
      fields: [['id'], ['type'], ['created'], ['data'], ['data', 'object']],
      objects: [[], ['data'], ['data', 'object']],
      // Stripe's scheme: t=<s>,v1=<hmac of "t.body">.
      sign: (text) => {
        const t = Math.floor(Date.now() / 1000);
        const v1 = createHmac('sha256', PROVIDER_SECRETS.BILLING_WEBHOOK_SECRET)
          .update(`${t}.${text}`)
          .digest('hex');
        return { 'billing-signature': `t=${t},v1=${v1}` };
      },
    },
    {
      route: 'email (signed)',
      path: '/api/webhooks/email',
      valid: { type: 'email.opened', data: { email_id: 'em_fuzz' } },
      fields: [['type'], ['data'], ['data', 'email_id']],
      objects: [[], ['data']],
      sign: (text) => signEmail(text),
    },
    {
      route: 'messaging (signed)',
      path: '/api/messaging/webhooks/cloud-api',
      valid: {
        object: 'whatsapp_business_account',
        entry: [{ id: 'WABA-1', changes: [{ field: 'messages', value: { messages: [] } }] }],
      },
      fields: [['object'], ['entry'], ['entry', 0, 'changes']],
      objects: [[], ['entry', 0]],
      // Meta's scheme: sha256=<hmac of the body under the app secret>.
      sign: (text) => ({
        'x-hub-signature-256': `sha256=${createHmac('sha256', PROVIDER_SECRETS.MESSAGING_APP_SECRET).update(text).digest('hex')}`,
      }),
    },
  ];

  it.each(SIGNED_RECEIVERS)('signed $route deliveries with hostile bodies', async (receiver) => {
    await fc.assert(
      fc.asyncProperty(hostileBody(receiver.valid, receiver.fields, receiver.objects), (body) =>
        send(receiver.route, receiver.path, body, receiver.sign(body.text)),
      ),
      fuzzOptions(RUNS / 2),
    );
    expect(platform.exited()).toEqual([]);
  });

  it('every receiver with hostile bodies and forged signatures', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...RECEIVERS),
        hostileJsonText,
        fc.array(forgedSignature, { minLength: 3, maxLength: 3 }),
        async (receiver, text, values) => {
          const headers = Object.fromEntries(
            receiver.signatureHeaders.map((name, i) => [name, values[i]]),
          );
          const body = { text, contentType: 'application/json', change: 'forged' };
          await send('receivers (forged signatures)', receiver.path, body, headers);
        },
      ),
      fuzzOptions(RUNS * 2),
    );
    expect(platform.exited()).toEqual([]);
  });
});
