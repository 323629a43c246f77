import { createPurposeSecretBox, CONNECTION_SECRETS } from '@crm/shared/crypto';
import { createHmac, randomUUID } from 'node:crypto';
import { createTenant, eventually, insertRow, tenantRows, testDb } from '@crm/test-kit';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * Rotating CONNECTION_SECRETS_KEY (docs/operations.md, Rotating secrets): webhook-ingest restarted with the new key
 * and the old one as CONNECTION_SECRETS_KEY_PREVIOUS keeps answering deliveries for connections
 * sealed under the old key, and its re-seal worker rewrites every stored secret under the new
 * key, after which the old key can be dropped.
 */
const OLD_KEY = 'the-old-connection-secrets-key-0123456789';
const NEW_KEY = 'the-new-connection-secrets-key-0123456789';
const secret = `rzp_${randomUUID()}`;
const db = testDb();
let tenantId: string;
let connectionId: string;
let unreadableId: string;

// Registered before the stack's own beforeAll, so the rows exist when its workers start.
beforeAll(async () => {
  tenantId = (await createTenant(db)).id;
  ({ id: connectionId } = await insertRow(db, 'payment_connections', {
    tenant_id: tenantId,
    provider: 'razorpay',
    webhook_secret_ciphertext: createPurposeSecretBox(OLD_KEY, CONNECTION_SECRETS).seal(secret),
  }));
  ({ id: unreadableId } = await insertRow(db, 'payment_connections', {
    tenant_id: tenantId,
    provider: 'razorpay',
    webhook_secret_ciphertext: createPurposeSecretBox(
      'neither-key-0123456789-0123456789',
      CONNECTION_SECRETS,
    ).seal('x'),
  }));
});
const stack = useReceiverStack({
  CONNECTION_SECRETS_KEY: NEW_KEY,
  CONNECTION_SECRETS_KEY_PREVIOUS: OLD_KEY,
});
afterAll(() => db.close());

async function storedCiphertext(id: string): Promise<string> {
  const rows = await tenantRows(db, 'payment_connections', tenantId);
  return rows.find((row) => row.id === id)?.webhook_secret_ciphertext as string;
}

function deliverPayment(): request.Test {
  const raw = JSON.stringify({
    entity: 'event',
    event: 'payment.captured',
    payload: { payment: { entity: { id: `pay_${randomUUID()}`, amount: 100, currency: 'INR' } } },
  });
  return request(stack.url)
    .post(`/api/payments/webhook?provider=razorpay&connection=${connectionId}`)
    .set('content-type', 'application/json')
    .set('X-Razorpay-Signature', createHmac('sha256', secret).update(raw).digest('hex'))
    .send(raw);
}

it('re-seals the stored secret under the new key; the old key no longer opens it', async () => {
  const resealed = await eventually(async () => {
    const stored = await storedCiphertext(connectionId);
    expect(createPurposeSecretBox(NEW_KEY, CONNECTION_SECRETS).open(stored)).toBe(secret);
    return stored;
  });
  expect(createPurposeSecretBox(OLD_KEY, CONNECTION_SECRETS).open(resealed)).toBeUndefined();
  const line = await eventually(() => {
    const found = stack.log
      .lines()
      .find(
        (l) =>
          l.msg === 'stored secrets re-sealed under the current key' &&
          l.table === 'payment_connections',
      );
    expect(found).toBeDefined();
    return found as Record<string, unknown>;
  });
  expect(line).toMatchObject({
    column: 'webhook_secret_ciphertext',
    unreadable: expect.any(Number),
  });
  expect(line.resealed).toBeGreaterThanOrEqual(1);
  expect(JSON.stringify(stack.log.lines())).not.toContain(secret);
});

it('keeps answering deliveries signed with the connection secret throughout', async () => {
  const before = (await tenantRows(db, 'payment_events', tenantId)).length;
  const res = await deliverPayment();
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ received: true });
  expect(await tenantRows(db, 'payment_events', tenantId)).toHaveLength(before + 1);
});

it('leaves a secret that opens with neither key as it was', async () => {
  const stored = await storedCiphertext(unreadableId);
  expect(
    createPurposeSecretBox('neither-key-0123456789-0123456789', CONNECTION_SECRETS).open(stored),
  ).toBe('x');
});
