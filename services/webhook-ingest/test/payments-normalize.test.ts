import { createHash } from 'node:crypto';
import { readMinorAmount } from '../src/providers/payments/amounts';
import { lemonsqueezy } from '../src/providers/payments/lemonsqueezy';
import { paddle } from '../src/providers/payments/paddle';
import { razorpay } from '../src/providers/payments/razorpay';
import { stripe } from '../src/providers/payments/stripe';
import type { PaymentProviderModule } from '../src/providers/payments/payment-event';

/**
 * Each provider's normaliser: which event types become payment.succeeded / failed / refunded,
 * the event key each is keyed by (always read from the signed body), the provider's id of the
 * payment or refund, amounts in major units, the payer's email; everything else is ignored; a
 * body that is no event of that provider is a 400. Payloads follow the providers' documented
 * webhook shapes.
 */
const normalize = (module: PaymentProviderModule, body: unknown) =>
  module.normalize(body, Buffer.from(JSON.stringify(body)));
const digestOf = (body: unknown) =>
  `sha256:${createHash('sha256').update(JSON.stringify(body)).digest('hex')}`;

function expectUnprocessable(run: () => unknown, message: RegExp) {
  try {
    run();
  } catch (error) {
    expect(error).toMatchObject({ status: 400, code: 'INVALID_REQUEST', message });
    return;
  }
  throw new Error('expected a 400');
}

describe('readMinorAmount', () => {
  it.each([
    [2500, 'USD', '25.00'],
    [1999, 'USD', '19.99'],
    [5, 'EUR', '0.05'],
    [0, 'USD', '0.00'],
    ['123456', 'INR', '1234.56'],
    [1000, 'JPY', '1000'],
    [1000, 'KRW', '1000'],
    [12340, 'KWD', '12.340'],
    [-150, 'USD', '-1.50'],
    [1999, null, '19.99'],
    ['9999999999999999', 'USD', '99999999999999.99'],
    ['-9999999999999999', 'USD', '-99999999999999.99'],
    ['99999999999999994', 'KWD', '99999999999999.994'],
    [19.5, 'USD', null],
    ['1e3', 'USD', null],
    [null, 'USD', null],
    [undefined, 'USD', null],
  ])('%p %p -> %p', (minor, currency, expected) => {
    expect(readMinorAmount(minor, currency)).toEqual({ major: expected });
  });

  it.each([
    ['99999999999999999', 'KWD', 'The amount 99999999999999.999 KWD does not fit'],
    ['10000000000000000', 'USD', 'The amount 100000000000000.00 USD does not fit'],
    [100000000000000, 'JPY', 'The amount 100000000000000 JPY does not fit'],
    ['-100000000000000', 'JPY', 'The amount -100000000000000 JPY does not fit'],
    [`1${'0'.repeat(60)}`, 'USD', `The amount 1${'0'.repeat(39)}... USD does not fit`],
    [2 ** 53 + 2, 'USD', 'The amount 90071992547409.94 USD was sent as a JSON number beyond 2^53'],
  ])('%p %p is unstorable: %s', (minor, currency, reason) => {
    const read = readMinorAmount(minor, currency);
    expect(read).toEqual({ unstorable: expect.stringContaining(reason) });
  });
});

describe('stripe normalize', () => {
  const event = (type: string, object: object) => ({ id: 'evt_1', type, data: { object } });

  it('payment_intent.succeeded: amount_received, currency upper-cased, receipt_email', () => {
    const body = event('payment_intent.succeeded', {
      id: 'pi_1',
      amount: 3000,
      amount_received: 2500,
      currency: 'usd',
      receipt_email: 'Ann@Example.COM',
    });
    expect(normalize(stripe, body)).toEqual({
      eventId: 'evt_1',
      eventType: 'payment_intent.succeeded',
      payment: {
        externalEventId: 'evt_1',
        kind: 'payment.succeeded',
        objectId: 'pi_1',
        amount: '25.00',
        currency: 'USD',
        email: 'ann@example.com',
      },
    });
  });

  it('payment_intent.payment_failed: amount, the failed payment method email', () => {
    const body = event('payment_intent.payment_failed', {
      amount: 1000,
      currency: 'jpy',
      receipt_email: null,
      last_payment_error: { payment_method: { billing_details: { email: 'bo@example.com' } } },
    });
    expect(normalize(stripe, body).payment).toEqual({
      externalEventId: 'evt_1',
      kind: 'payment.failed',
      objectId: null,
      amount: '1000',
      currency: 'JPY',
      email: 'bo@example.com',
    });
  });

  it('charge.refunded: amount_refunded, billing_details.email, the charge and refunded total as object', () => {
    const body = event('charge.refunded', {
      id: 'ch_1',
      amount: 5000,
      amount_refunded: 1250,
      currency: 'eur',
      billing_details: { email: 'cy@example.com' },
    });
    expect(normalize(stripe, body).payment).toMatchObject({
      kind: 'payment.refunded',
      objectId: 'ch_1:1250',
      amount: '12.50',
      currency: 'EUR',
      email: 'cy@example.com',
    });
  });

  it('a payment event without an object still stores what it can (nulls)', () => {
    expect(normalize(stripe, { id: 'evt_2', type: 'charge.refunded' }).payment).toEqual({
      externalEventId: 'evt_2',
      kind: 'payment.refunded',
      objectId: null,
      amount: null,
      currency: null,
      email: null,
    });
  });

  it('other types are ignored', () => {
    expect(normalize(stripe, event('customer.created', {}))).toEqual({
      eventId: 'evt_1',
      eventType: 'customer.created',
      payment: null,
    });
  });

  it.each([
    [{}],
    [[]],
    ['text'],
    [{ id: 'evt_1' }],
    [{ type: 'charge.refunded' }],
    [{ id: { nested: 1 }, type: 'x' }],
    [{ id: '  ', type: 'x' }],
  ])('a body that is not an event (%p) is a 400', (body) => {
    expectUnprocessable(() => normalize(stripe, body), /not a Stripe event/);
  });
});

describe('razorpay normalize', () => {
  const payment = { id: 'pay_1', amount: 50000, currency: 'INR', email: 'Dee@Example.com' };
  const captured = {
    entity: 'event',
    account_id: 'acc_1',
    event: 'payment.captured',
    contains: ['payment'],
    payload: { payment: { entity: payment } },
    created_at: 1714564800,
  };

  it('payment.captured keyed by the signed event name, payment id and created_at (never the unsigned x-razorpay-event-id header)', () => {
    expect(normalize(razorpay, captured)).toEqual({
      eventId: 'payment.captured:pay_1:1714564800',
      eventType: 'payment.captured',
      payment: {
        externalEventId: 'payment.captured:pay_1:1714564800',
        kind: 'payment.succeeded',
        objectId: 'pay_1',
        amount: '500.00',
        currency: 'INR',
        email: 'dee@example.com',
      },
    });
  });

  it('without created_at (or an entity id), keyed by a digest of the raw body', () => {
    const { created_at: _createdAt, ...undated } = captured;
    expect(normalize(razorpay, undated).eventId).toBe(digestOf(undated));
    const noEntity = { ...captured, payload: { payment: { entity: {} } } };
    expect(normalize(razorpay, noEntity).eventId).toBe(digestOf(noEntity));
  });

  it('another event is keyed by the first entity it contains', () => {
    const paid = {
      ...captured,
      event: 'order.paid',
      contains: ['order', 'payment'],
      payload: { order: { entity: { id: 'order_1' } }, payment: { entity: payment } },
    };
    expect(normalize(razorpay, paid)).toEqual({
      eventId: 'order.paid:order_1:1714564800',
      eventType: 'order.paid',
      payment: null,
    });
  });

  it('payment.failed and refund.processed (the refund entity amount, the payment email)', () => {
    const failed = { ...captured, event: 'payment.failed' };
    expect(normalize(razorpay, failed).payment).toMatchObject({
      kind: 'payment.failed',
      amount: '500.00',
    });
    const refund = {
      ...captured,
      event: 'refund.processed',
      contains: ['refund', 'payment'],
      payload: {
        refund: { entity: { id: 'rfnd_1', amount: 10000, currency: 'INR', payment_id: 'pay_1' } },
        payment: { entity: payment },
      },
    };
    expect(normalize(razorpay, refund)).toMatchObject({
      eventId: 'refund.processed:rfnd_1:1714564800',
    });
    expect(normalize(razorpay, refund).payment).toMatchObject({
      kind: 'payment.refunded',
      objectId: 'rfnd_1',
      amount: '100.00',
      currency: 'INR',
      email: 'dee@example.com',
    });
  });

  it('other events are ignored; a body without `event` is a 400', () => {
    expect(normalize(razorpay, { ...captured, event: 'order.paid' }).payment).toBeNull();
    expectUnprocessable(() => normalize(razorpay, { payload: {} }), /not a Razorpay event/);
  });
});

describe('paddle normalize', () => {
  const transaction = {
    id: 'txn_1',
    status: 'completed',
    customer_id: 'ctm_1',
    currency_code: 'EUR',
    details: { totals: { subtotal: '1000', tax: '190', total: '1190', grand_total: '1190' } },
  };
  const event = (event_type: string, data: object) => ({
    event_id: 'evt_01hv',
    event_type,
    occurred_at: '2024-05-01T12:00:00Z',
    notification_id: 'ntf_01hv',
    data,
  });

  it('transaction.completed: grand_total, no email unless the customer is included', () => {
    expect(normalize(paddle, event('transaction.completed', transaction))).toEqual({
      eventId: 'evt_01hv',
      eventType: 'transaction.completed',
      payment: {
        externalEventId: 'evt_01hv',
        kind: 'payment.succeeded',
        objectId: 'txn_1',
        amount: '11.90',
        currency: 'EUR',
        email: null,
      },
    });
    const withCustomer = { ...transaction, customer: { id: 'ctm_1', email: 'Eve@Example.com' } };
    expect(normalize(paddle, event('transaction.completed', withCustomer)).payment?.email).toBe(
      'eve@example.com',
    );
  });

  it('transaction.payment_failed is a failed payment (no object id: a payment may fail again)', () => {
    expect(
      normalize(paddle, event('transaction.payment_failed', transaction)).payment,
    ).toMatchObject({ kind: 'payment.failed', objectId: null });
  });

  it('an approved refund adjustment (created or updated) is a refund; others are ignored', () => {
    const adjustment = {
      id: 'adj_1',
      action: 'refund',
      status: 'approved',
      transaction_id: 'txn_1',
      currency_code: 'USD',
      totals: { subtotal: '500', tax: '0', total: '500', currency_code: 'USD' },
    };
    for (const type of ['adjustment.created', 'adjustment.updated']) {
      expect(normalize(paddle, event(type, adjustment)).payment).toEqual({
        externalEventId: 'evt_01hv',
        kind: 'payment.refunded',
        objectId: 'adj_1',
        amount: '5.00',
        currency: 'USD',
        email: null,
      });
    }
    const pending = normalize(
      paddle,
      event('adjustment.created', { ...adjustment, status: 'pending_approval' }),
    );
    expect(pending).toMatchObject({ payment: null, ignoredReason: 'refund not approved yet' });
    const credit = normalize(
      paddle,
      event('adjustment.created', { ...adjustment, action: 'credit' }),
    );
    expect(credit).toMatchObject({ payment: null, ignoredReason: 'not a refund' });
  });

  it('other events are ignored; a body without event_id or event_type is a 400', () => {
    expect(normalize(paddle, event('subscription.created', {})).payment).toBeNull();
    expectUnprocessable(
      () => normalize(paddle, { event_type: 'transaction.completed' }),
      /not a Paddle event/,
    );
  });
});

describe('lemonsqueezy normalize', () => {
  const order = (event_name: string, attributes: object) => ({
    meta: { event_name, custom_data: {} },
    data: { type: 'orders', id: '101', attributes },
  });

  it('order_created: total in cents, user_email, keyed by event name and order id', () => {
    const body = order('order_created', {
      currency: 'USD',
      total: 999,
      user_email: 'Fay@Example.com',
    });
    expect(normalize(lemonsqueezy, body)).toEqual({
      eventId: 'order_created:orders:101',
      eventType: 'order_created',
      payment: {
        externalEventId: 'order_created:orders:101',
        kind: 'payment.succeeded',
        objectId: 'orders:101',
        amount: '9.99',
        currency: 'USD',
        email: 'fay@example.com',
      },
    });
  });

  it('subscription payments: success and failure', () => {
    const invoice = (event_name: string) => ({
      meta: { event_name },
      data: {
        type: 'subscription-invoices',
        id: '7',
        attributes: { currency: 'EUR', total: 1500, user_email: 'g@example.com', status: 'paid' },
      },
    });
    expect(normalize(lemonsqueezy, invoice('subscription_payment_success'))).toMatchObject({
      eventId: 'subscription_payment_success:subscription-invoices:7',
      payment: { kind: 'payment.succeeded', amount: '15.00', currency: 'EUR' },
    });
    expect(normalize(lemonsqueezy, invoice('subscription_payment_failed')).payment).toMatchObject({
      kind: 'payment.failed',
      objectId: null,
    });
  });

  it('order_refunded: the refunded amount, keyed so a second partial refund is a new event', () => {
    const first = order('order_refunded', { currency: 'USD', total: 999, refunded_amount: 300 });
    const second = order('order_refunded', { currency: 'USD', total: 999, refunded_amount: 999 });
    expect(normalize(lemonsqueezy, first)).toMatchObject({
      eventId: 'order_refunded:orders:101:300',
      payment: { kind: 'payment.refunded', objectId: 'orders:101:300', amount: '3.00' },
    });
    expect(normalize(lemonsqueezy, second).eventId).toBe('order_refunded:orders:101:999');
  });

  it('without a data id, keyed by a digest of the raw body', () => {
    const body = { meta: { event_name: 'order_created' }, data: { attributes: { total: 1 } } };
    expect(normalize(lemonsqueezy, body).eventId).toBe(digestOf(body));
  });

  it('other events are ignored; a body without meta.event_name is a 400', () => {
    expect(normalize(lemonsqueezy, order('license_key_created', {})).payment).toBeNull();
    expectUnprocessable(() => normalize(lemonsqueezy, { data: {} }), /not a Lemon Squeezy event/);
  });
});
