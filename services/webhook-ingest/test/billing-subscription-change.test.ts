import {
  isSubscriptionEvent,
  parseBillingEvent,
  subscriptionChangeFrom,
} from '../src/providers/billing/subscription-change';

/**
 * What a verified billing event says about a subscription (pure, Stripe object shapes of
 * API versions before and since 2025-03-31): plan, status, period end, customer, the tenant
 * hint; events about no subscription give nothing; wrong shapes are a 400.
 */
const TENANT = '6f1c2b8e-2d7a-4a53-9a59-0d1c3c7d1f00';

function expectProcessingFailed(run: () => unknown, message: RegExp) {
  try {
    run();
  } catch (error) {
    expect(error).toMatchObject({ status: 400, code: 'INVALID_REQUEST', message });
    return;
  }
  throw new Error('expected a 400');
}

describe('parseBillingEvent', () => {
  it('takes an object with an id and a type', () => {
    expect(parseBillingEvent({ id: 'evt_1', type: 'invoice.paid', data: { object: {} } })).toEqual({
      id: 'evt_1',
      type: 'invoice.paid',
      data: { object: {} },
    });
  });

  it.each([[null], [[]], ['evt_1'], [{ id: 'evt_1' }], [{ type: 'x' }], [{ id: '', type: 'x' }]])(
    'refuses %p with a 400',
    (body) => {
      expectProcessingFailed(() => parseBillingEvent(body), /not a billing event/);
    },
  );
});

describe('subscription events', () => {
  it('API 2025-03-31: period end on the item, customer expanded, plan from the lookup key', () => {
    const change = subscriptionChangeFrom('customer.subscription.updated', {
      id: 'sub_1',
      customer: { id: 'cus_1', object: 'customer' },
      status: 'trialing',
      metadata: { tenant_id: TENANT, plan: 'ignored-when-a-price-names-it' },
      items: {
        data: [{ price: { id: 'price_1', lookup_key: 'pro' }, current_period_end: 1_800_000_000 }],
      },
    });
    expect(change).toEqual({
      subscriptionId: 'sub_1',
      customerId: 'cus_1',
      status: 'trialing',
      plan: 'pro',
      currentPeriodEnd: new Date(1_800_000_000_000),
      tenantHint: TENANT,
      ended: false,
    });
  });

  it('plan falls back to the price id, then to metadata.plan', () => {
    const base = { id: 'sub_1', customer: 'cus_1', status: 'active' };
    const byPrice = subscriptionChangeFrom('customer.subscription.created', {
      ...base,
      items: { data: [{ price: { id: 'price_9', lookup_key: null } }] },
    });
    expect(byPrice?.plan).toBe('price_9');
    const byMetadata = subscriptionChangeFrom('customer.subscription.created', {
      ...base,
      metadata: { plan: 'team' },
      items: { data: [] },
    });
    expect(byMetadata).toMatchObject({ plan: 'team', currentPeriodEnd: null, tenantHint: null });
  });

  it('deleted, canceled and incomplete_expired end the subscription; past_due does not', () => {
    const sub = (status: string) => ({ id: 'sub_1', customer: 'cus_1', status });
    expect(subscriptionChangeFrom('customer.subscription.deleted', sub('active'))?.ended).toBe(
      true,
    );
    expect(subscriptionChangeFrom('customer.subscription.updated', sub('canceled'))?.ended).toBe(
      true,
    );
    expect(
      subscriptionChangeFrom('customer.subscription.updated', sub('incomplete_expired'))?.ended,
    ).toBe(true);
    expect(subscriptionChangeFrom('customer.subscription.updated', sub('past_due'))?.ended).toBe(
      false,
    );
  });

  it.each([
    ['no id', { customer: 'cus_1', status: 'active' }],
    ['no status', { id: 'sub_1' }],
    ['a period end as text', { id: 'sub_1', status: 'active', current_period_end: 'soon' }],
    ['a period end beyond year 9999', { id: 'sub_1', status: 'active', current_period_end: 1e15 }],
    ['items not a list', { id: 'sub_1', status: 'active', items: { data: 'x' } }],
    ['not an object', 'sub_1'],
  ])('a subscription with %s is a 400', (_case, object) => {
    expectProcessingFailed(
      () => subscriptionChangeFrom('customer.subscription.updated', object),
      /expected shape/,
    );
  });
});

describe('invoice events', () => {
  it('paid is active, payment_failed is past_due; tenant from the subscription metadata', () => {
    const invoice = {
      id: 'in_1',
      customer: 'cus_1',
      subscription: 'sub_1',
      subscription_details: { metadata: { tenant_id: TENANT, plan: 'pro' } },
      lines: {
        data: [{ price: { id: 'price_1', lookup_key: null }, period: { end: 1_800_000_000 } }],
      },
    };
    expect(subscriptionChangeFrom('invoice.paid', invoice)).toEqual({
      subscriptionId: 'sub_1',
      customerId: 'cus_1',
      status: 'active',
      plan: 'price_1',
      currentPeriodEnd: new Date(1_800_000_000_000),
      tenantHint: TENANT,
      ended: false,
    });
    expect(subscriptionChangeFrom('invoice.payment_failed', invoice)?.status).toBe('past_due');
  });

  it('API 2025-03-31: subscription under parent; a line priced by id only keeps the plan', () => {
    const change = subscriptionChangeFrom('invoice.paid', {
      id: 'in_1',
      customer: 'cus_1',
      parent: { subscription_details: { subscription: 'sub_2', metadata: {} } },
      lines: { data: [{ pricing: { price_details: { price: 'price_2' } } }] },
    });
    expect(change).toMatchObject({ subscriptionId: 'sub_2', plan: null, tenantHint: null });
  });

  it('an invoice of no subscription gives no change', () => {
    expect(
      subscriptionChangeFrom('invoice.paid', { id: 'in_1', customer: 'cus_1' }),
    ).toBeUndefined();
  });
});

describe('checkout.session.completed', () => {
  it('tenant from metadata, else client_reference_id; none without a subscription', () => {
    const session = {
      id: 'cs_1',
      customer: 'cus_1',
      subscription: 'sub_1',
      metadata: { plan: 'pro' },
    };
    expect(
      subscriptionChangeFrom('checkout.session.completed', {
        ...session,
        client_reference_id: TENANT,
      }),
    ).toMatchObject({
      status: 'active',
      plan: 'pro',
      tenantHint: TENANT,
    });
    expect(
      subscriptionChangeFrom('checkout.session.completed', { ...session, subscription: null }),
    ).toBeUndefined();
  });
});

it('isSubscriptionEvent names exactly the six handled types', () => {
  const handled = [
    'customer.subscription.created',
    'customer.subscription.updated',
    'customer.subscription.deleted',
    'invoice.paid',
    'invoice.payment_failed',
    'checkout.session.completed',
  ];
  const others = ['customer.subscription.trial_will_end', 'invoice.created', 'customer.created'];
  expect([...handled, ...others].filter(isSubscriptionEvent)).toEqual(handled);
});
