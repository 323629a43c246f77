import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { ledgerRows, testDb } from '@crm/test-kit';
import request from 'supertest';
import { Webhook } from 'svix';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { TEST_PUBLIC_BASE_URL, useReceiverStack } from './support/receiver-stack';

/**
 * Rotating a provider secret (docs/operations.md, Rotating secrets): while `<SECRET>_PREVIOUS` holds the old value,
 * deliveries signed with the old or the new secret verify, so the provider's switch and our
 * rollout need not coincide; a delivery signed with anything else is still refused with the
 * receiver's own answer and writes nothing. Three signature schemes: the network's timestamped
 * HMAC, Standard Webhooks (email, svix) and the Twilio scheme (telephony, 403).
 */
const whsec = () => `whsec_${randomBytes(24).toString('base64')}`;
const SECRETS = {
  network: { current: 'network-new-secret', previous: 'network-old-secret' },
  email: { current: whsec(), previous: whsec() },
  telephony: { current: 'telephony-new-token', previous: 'telephony-old-token' },
};
const stack = useReceiverStack({
  NETWORK_WEBHOOK_SECRET: SECRETS.network.current,
  NETWORK_WEBHOOK_SECRET_PREVIOUS: SECRETS.network.previous,
  EMAIL_WEBHOOK_SECRET: SECRETS.email.current,
  EMAIL_WEBHOOK_SECRET_PREVIOUS: SECRETS.email.previous,
  TELEPHONY_AUTH_TOKEN: SECRETS.telephony.current,
  TELEPHONY_AUTH_TOKEN_PREVIOUS: SECRETS.telephony.previous,
});
const db = testDb();
afterAll(() => db.close());

type Provider = keyof typeof SECRETS;

/** One delivery of `provider` signed with `secret`; its ledger id, to find what it wrote. */
function deliver(provider: Provider, secret: string): { sent: request.Test; deliveryId: string } {
  if (provider === 'network') {
    const raw = JSON.stringify({ events: [{ id: randomUUID(), type: 'connection.accepted' }] });
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');
    return {
      sent: request(stack.url)
        .post('/api/webhooks/network')
        .set('content-type', 'application/json')
        .set('x-network-signature', `t=${t},v1=${signature}`)
        .send(raw),
      deliveryId: `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    };
  }
  if (provider === 'email') {
    const id = `msg_${randomUUID()}`;
    const raw = JSON.stringify({
      type: 'email.sent',
      created_at: new Date().toISOString(),
      data: {},
    });
    const at = new Date();
    return {
      sent: request(stack.url)
        .post('/api/webhooks/email')
        .set('content-type', 'application/json')
        .set({
          'email-webhook-id': id,
          'email-webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'email-webhook-signature': new Webhook(secret).sign(id, at, raw),
        })
        .send(raw),
      deliveryId: id,
    };
  }
  const path = '/api/communications/webhooks';
  const callSid = `CA${randomUUID().replace(/-/g, '')}`;
  const params = { CallSid: callSid, CallStatus: 'ringing', From: '+15550001111' };
  return {
    sent: request(stack.url)
      .post(path)
      .set('content-type', 'application/x-www-form-urlencoded; charset=utf-8')
      .set(
        'X-Telephony-Signature',
        getExpectedTwilioSignature(secret, `${TEST_PUBLIC_BASE_URL}${path}`, params),
      )
      .send(new URLSearchParams(params).toString()),
    deliveryId: callSid,
  };
}

async function ledgerHas(provider: Provider, deliveryId: string): Promise<boolean> {
  return (await ledgerRows(db, provider)).some((row) =>
    String(row.delivery_id).includes(deliveryId),
  );
}

describe.each(Object.keys(SECRETS) as Provider[])('%s', (provider) => {
  it.each(['current', 'previous'] as const)(
    'accepts a delivery signed with the %s secret and records it',
    async (which) => {
      const { sent, deliveryId } = deliver(provider, SECRETS[provider][which]);
      const res = await sent;
      expect(res.status).toBe(200);
      expect(await ledgerHas(provider, deliveryId)).toBe(true);
    },
  );

  it('refuses one signed with any other secret, as it always does, and records nothing', async () => {
    const other = provider === 'email' ? whsec() : 'neither-the-old-nor-the-new-secret';
    const { sent, deliveryId } = deliver(provider, other);
    const res = await sent;
    expect(res.status).toBe(provider === 'telephony' ? 403 : 401);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid signature' });
    expect(await ledgerHas(provider, deliveryId)).toBe(false);
  });
});
