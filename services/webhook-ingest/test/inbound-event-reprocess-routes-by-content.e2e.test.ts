import { createHmac, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { withSystemScope, type Trx } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  failInsertsOf,
  insertRow,
  outboxEvents,
  signIn,
  tenantRowCounts,
  tenantRows,
  tenantSession,
  testDb,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { Webhook } from 'svix';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { TEST_PUBLIC_BASE_URL, useReceiverStack } from './support/receiver-stack';

/**
 * Re-processing the deliveries of the shared-secret receivers (billing, email, network,
 * messaging, telephony), through the real gateway against real Postgres. Each provider's
 * delivery is routed to a tenant by its content; one whose write fails (an outage: inserts of
 * the tenant's rows fail) is in that tenant's ledger as failed. An owner re-processes it once
 * the outage is over: routed again by its content, it is written exactly once, however often
 * it is re-processed. When its content no longer routes to the tenant (the identifier released,
 * then another tenant's), re-processing is a 409 that writes nothing in either tenant and
 * says the same in both cases; another tenant's id is a 404 and a viewer is refused.
 */
const SECRETS = {
  billing: 'whsec_reprocess_billing_c2VjcmV0',
  email: `whsec_${randomBytes(32).toString('base64')}`,
  network: 'reprocess-network-secret',
  messaging: 'reprocess-messaging-app-secret',
  telephony: 'reprocess-telephony-auth-token',
};
const database = testDb();
const stack = useReceiverStack({
  BILLING_WEBHOOK_SECRET: SECRETS.billing,
  EMAIL_WEBHOOK_SECRET: SECRETS.email,
  NETWORK_WEBHOOK_SECRET: SECRETS.network,
  MESSAGING_APP_SECRET: SECRETS.messaging,
  TELEPHONY_AUTH_TOKEN: SECRETS.telephony,
});
afterAll(() => database.close());

const LEDGER = '/api/integrations/inbound-events';
const NOT_THEIRS = { success: false, code: 'NOT_FOUND', message: 'Inbound event not found' };
const uid = () => randomUUID().replace(/-/g, '').slice(0, 16);
const nowSeconds = () => Math.floor(Date.now() / 1000);
const hmacHex = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data).digest('hex');
const system = (fn: (trx: Trx) => Promise<void>) => withSystemScope(database.db, fn);

/**
 * One provider: `own` gives the tenant the identifier its deliveries name; `send` posts the
 * n-th signed delivery about it (each a new one); `stored` is what one processed delivery
 * writes in the tenant (its rows and its outbox event); `release` takes the identifier from
 * the tenant, `giveTo` makes it another tenant's.
 */
interface ProviderCase {
  provider: string;
  outage: string;
  eventType: string;
  own(tenantId: string): Promise<void>;
  send(n: number): request.Test;
  stored(tenantId: string): Promise<unknown[]>;
  release(tenantId: string): Promise<void>;
  giveTo(tenantId: string): Promise<void>;
}

function billingCase(): ProviderCase {
  // Routed by the customer id: the tenant whose subscription has it (no metadata tenant_id).
  const customer = `cus_${uid()}`;
  const subscriptions: string[] = [];
  const subscriptionRow = (tenantId: string) =>
    insertRow(database, 'billing_subscriptions', {
      tenant_id: tenantId,
      provider_subscription_id: `sub_${uid()}`,
      provider_customer_id: customer,
      status: 'canceled',
    });
  return {
    provider: 'billing',
    outage: 'billing_subscriptions',
    eventType: 'billing.subscription_updated',
    own: async (tenantId) => void (await subscriptionRow(tenantId)),
    send(n) {
      subscriptions[n] = `sub_${uid()}`;
      const t = nowSeconds();
      const id = `evt_${uid()}`;
      const payload = JSON.stringify({
        id,
        object: 'event',
        created: t,
        type: 'customer.subscription.created',
        data: {
          object: {
            id: subscriptions[n],
            object: 'subscription',
            customer,
            status: 'active',
            metadata: {},
            items: { data: [{ price: { id: 'price_pro', lookup_key: 'pro' } }] },
          },
        },
      });
      return request(stack.url)
        .post('/api/webhooks/billing')
        .set('content-type', 'application/json')
        .set('billing-signature', `t=${t},v1=${hmacHex(SECRETS.billing, `${t}.${payload}`)}`)
        .send(payload);
    },
    stored: async (tenantId) =>
      (await tenantRows(database, 'billing_subscriptions', tenantId)).filter((row) =>
        subscriptions.includes(String(row.provider_subscription_id)),
      ),
    release: (tenantId) =>
      system(async (trx) => {
        await trx
          .deleteFrom('billing_subscriptions')
          .where('tenant_id', '=', tenantId)
          .where('provider_customer_id', '=', customer)
          .execute();
      }),
    giveTo: async (tenantId) => void (await subscriptionRow(tenantId)),
  };
}

function emailCase(): ProviderCase {
  // Routed by the provider message id: the tenant whose sent email it is.
  const providerMessageId = `em_${uid()}`;
  const sentEmail = (tenantId: string) =>
    insertRow(database, 'email_messages', {
      tenant_id: tenantId,
      provider_message_id: providerMessageId,
      to_email: 'lead@example.com',
      subject: 'Our proposal',
    });
  return {
    provider: 'email',
    outage: 'email_opens',
    eventType: 'email.opened',
    own: async (tenantId) => void (await sentEmail(tenantId)),
    send(n) {
      const id = `msg_${uid()}`;
      const at = new Date();
      const raw = JSON.stringify({
        type: 'email.opened',
        created_at: at.toISOString(),
        data: { email_id: providerMessageId, open: { userAgent: `Mail/${n}` } },
      });
      return request(stack.url)
        .post('/api/webhooks/email')
        .set('content-type', 'application/json')
        .set({
          'email-webhook-id': id,
          'email-webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'email-webhook-signature': new Webhook(SECRETS.email).sign(id, at, raw),
        })
        .send(raw);
    },
    stored: (tenantId) => tenantRows(database, 'email_opens', tenantId),
    release: (tenantId) =>
      system(async (trx) => {
        await trx
          .deleteFrom('email_messages')
          .where('tenant_id', '=', tenantId)
          .where('provider_message_id', '=', providerMessageId)
          .execute();
      }),
    giveTo: async (tenantId) => void (await sentEmail(tenantId)),
  };
}

/** A proven claim on `identifier` in a claims table, and its release (back to pending). */
function claims(table: 'network_accounts' | 'messaging_accounts' | 'telephony_numbers') {
  const column = {
    network_accounts: 'external_account_id',
    messaging_accounts: 'phone_number_id',
    telephony_numbers: 'phone_number',
  }[table];
  return {
    claim: async (tenantId: string, identifier: string) =>
      void (await insertRow(database, table, {
        tenant_id: tenantId,
        [column]: identifier,
        proven_at: new Date(),
      })),
    unprove: (tenantId: string, identifier: string) =>
      system(async (trx) => {
        await sql`UPDATE ${sql.table(table)} SET proven_at = NULL
                   WHERE tenant_id = ${tenantId} AND ${sql.ref(column)} = ${identifier}`.execute(
          trx,
        );
      }),
  };
}

function networkCase(): ProviderCase {
  const account = `acc-${uid()}`;
  const { claim, unprove } = claims('network_accounts');
  return {
    provider: 'network',
    outage: 'network_events',
    eventType: 'network.activity',
    own: (tenantId) => claim(tenantId, account),
    send(n) {
      const raw = JSON.stringify({
        id: `evt-${uid()}-${n}`,
        type: 'INVITATION_SENT',
        account_id: account,
        occurred_at: '2024-04-30T09:15:00Z',
      });
      const t = nowSeconds();
      return request(stack.url)
        .post('/api/webhooks/network')
        .set('content-type', 'application/json')
        .set('x-network-signature', `t=${t},v1=${hmacHex(SECRETS.network, `${t}.${raw}`)}`)
        .send(raw);
    },
    stored: (tenantId) => tenantRows(database, 'network_events', tenantId),
    release: (tenantId) => unprove(tenantId, account),
    giveTo: (tenantId) => claim(tenantId, account),
  };
}

function messagingCase(): ProviderCase {
  const phoneNumberId = `pn-${uid()}`;
  const { claim, unprove } = claims('messaging_accounts');
  return {
    provider: 'messaging',
    outage: 'chat_messages',
    eventType: 'message.received',
    own: (tenantId) => claim(tenantId, phoneNumberId),
    send(n) {
      const raw = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'WABA-1',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
                  contacts: [{ profile: { name: 'Ann Lee' }, wa_id: '15551234567' }],
                  messages: [
                    {
                      from: '15551234567',
                      id: `wamid.${uid()}`,
                      timestamp: String(nowSeconds()),
                      type: 'text',
                      text: { body: `Is the blue one in stock? (${n})` },
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
      return request(stack.url)
        .post('/api/messaging/webhooks/cloud-api')
        .set('content-type', 'application/json')
        .set('x-hub-signature-256', `sha256=${hmacHex(SECRETS.messaging, raw)}`)
        .send(raw);
    },
    stored: (tenantId) => tenantRows(database, 'chat_messages', tenantId),
    release: (tenantId) => unprove(tenantId, phoneNumberId),
    giveTo: (tenantId) => claim(tenantId, phoneNumberId),
  };
}

function telephonyCase(): ProviderCase {
  // The column is globally unique and other files share the database: a random number.
  const number = `+1${randomInt(200, 999)}${String(randomInt(0, 1e7)).padStart(7, '0')}`;
  const { claim, unprove } = claims('telephony_numbers');
  const path = '/api/communications/webhooks';
  return {
    provider: 'telephony',
    outage: 'call_logs',
    eventType: 'call.completed',
    own: (tenantId) => claim(tenantId, number),
    send(n) {
      const params = {
        CallSid: `CA${uid()}${n}`,
        CallStatus: 'completed',
        Direction: 'inbound',
        From: `+1${randomInt(200, 999)}${String(randomInt(0, 1e7)).padStart(7, '0')}`,
        To: number,
        CallDuration: '42',
      };
      return request(stack.url)
        .post(path)
        .set('content-type', 'application/x-www-form-urlencoded; charset=utf-8')
        .set(
          'X-Telephony-Signature',
          getExpectedTwilioSignature(SECRETS.telephony, `${TEST_PUBLIC_BASE_URL}${path}`, params),
        )
        .send(new URLSearchParams(params).toString());
    },
    stored: (tenantId) => tenantRows(database, 'call_logs', tenantId),
    release: (tenantId) => unprove(tenantId, number),
    giveTo: (tenantId) => claim(tenantId, number),
  };
}

type Session = Awaited<ReturnType<typeof tenantSession>>;

const CASES: Record<string, () => ProviderCase> = {
  billing: billingCase,
  email: emailCase,
  network: networkCase,
  messaging: messagingCase,
  telephony: telephonyCase,
};

describe.each(Object.keys(CASES))('re-processing a %s delivery', (name) => {
  const c = CASES[name]();
  let owner: Session;
  let other: Session;
  let viewerCookie: string;

  const reprocess = (cookie: string, id: string) =>
    request(stack.url).post(`${LEDGER}/${id}/reprocess`).set('Cookie', cookie);
  const read = async (id: string) =>
    (await request(stack.url).get(`${LEDGER}/${id}`).set('Cookie', owner.cookie)).body.data.event;
  const events = async (tenantId: string) =>
    (await outboxEvents(database, tenantId)).filter((e) => e.type === c.eventType);

  /** Sends delivery `n` while the tenant's writes fail; answers its ledger id. */
  async function failedDelivery(n: number): Promise<string> {
    const before = new Set(
      (await listFailed()).map((event: { id: string }) => event.id) as string[],
    );
    const outage = await failInsertsOf(database, c.outage, owner.tenantId);
    try {
      const sent = await c.send(n);
      // The write failed: the provider is told to retry.
      expect(sent.status).toBe(500);
    } finally {
      await outage.restore();
    }
    const added = (await listFailed()).filter((event: { id: string }) => !before.has(event.id));
    expect(added).toHaveLength(1);
    return added[0].id;
  }
  async function listFailed() {
    const res = await request(stack.url)
      .get(`${LEDGER}?provider=${c.provider}&outcome=failed`)
      .set('Cookie', owner.cookie);
    expect(res.status).toBe(200);
    return res.body.items;
  }

  beforeAll(async () => {
    owner = await tenantSession(stack, database, 'owner');
    other = await tenantSession(stack, database, 'owner');
    const viewer = await createAccount(database, `reprocess-${c.provider}-viewer`);
    await addMember(database, owner.tenantId, viewer.id, 'viewer');
    viewerCookie = await signIn(stack.gateway.app, viewer.email);
    await c.own(owner.tenantId);
  });

  it("fails into the tenant's ledger, is refused to a viewer and to another tenant, then is written once however often it is re-processed", async () => {
    const id = await failedDelivery(1);
    expect(await read(id)).toMatchObject({
      provider: c.provider,
      verification: 'verified',
      outcome: 'failed',
      attempts: 1,
      detail: expect.stringContaining('simulated outage'),
    });
    expect(await c.stored(owner.tenantId)).toEqual([]);

    const viewer = await reprocess(viewerCookie, id);
    expect(viewer.status).toBe(403);
    expect(viewer.body.message).toBe('Viewers may only read');
    const theirs = await reprocess(other.cookie, id);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject(NOT_THEIRS);
    expect(await c.stored(owner.tenantId)).toEqual([]);
    expect(await read(id)).toMatchObject({ outcome: 'failed', attempts: 1 });

    const first = await reprocess(owner.cookie, id);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      reprocessed: true,
      event: { id, outcome: 'processed', attempts: 2 },
    });
    expect(first.body.message).toBe('Re-processed: processed');
    expect(await c.stored(owner.tenantId)).toHaveLength(1);
    expect(await events(owner.tenantId)).toHaveLength(1);

    const before = await tenantRowCounts(database, owner.tenantId);
    const again = await reprocess(owner.cookie, id);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      reprocessed: false,
      event: { outcome: 'processed', attempts: 2 },
    });
    expect(again.body.message).toBe('The delivery is already processed: nothing was written again');
    expect(await tenantRowCounts(database, owner.tenantId)).toEqual(before);
    expect(await c.stored(owner.tenantId)).toHaveLength(1);
    expect(await events(owner.tenantId)).toHaveLength(1);
  });

  it('is a 409 that writes nothing in either tenant once its content routes elsewhere: released, or now another tenant’s, alike', async () => {
    const id = await failedDelivery(2);
    const failed = await read(id);
    const storedBefore = await c.stored(owner.tenantId);

    const refusedWith = async () => {
      const counts = {
        own: await tenantRowCounts(database, owner.tenantId),
        other: await tenantRowCounts(database, other.tenantId),
      };
      const res = await reprocess(owner.cookie, id);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        success: false,
        code: 'CONFLICT',
        details: { provider: c.provider },
      });
      expect(await tenantRowCounts(database, owner.tenantId)).toEqual(counts.own);
      expect(await tenantRowCounts(database, other.tenantId)).toEqual(counts.other);
      expect(await read(id)).toEqual(failed);
      return res.body.message as string;
    };

    await c.release(owner.tenantId);
    const released = await refusedWith();
    expect(released).toMatch(
      /^The delivery no longer routes to this workspace: .* this workspace's now\. Nothing was written$/,
    );

    await c.giveTo(other.tenantId);
    // The same words: the refusal never tells whether another tenant holds the identifier.
    expect(await refusedWith()).toBe(released);
    expect(await c.stored(other.tenantId)).toEqual([]);
    expect(await events(other.tenantId)).toEqual([]);
    expect((await c.stored(owner.tenantId)).length).toBeLessThanOrEqual(storedBefore.length);
  });
});
