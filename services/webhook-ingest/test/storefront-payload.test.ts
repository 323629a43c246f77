import { AppError } from '@crm/shared/http';
import {
  normaliseShopDomain,
  readStorefrontACustomer,
  readStorefrontAOrder,
  readStorefrontAVersion,
} from '../src/providers/storefront-a/storefront-a-payload';
import {
  normaliseSourceUrl,
  readStorefrontBCustomer,
  readStorefrontBOrder,
  readStorefrontBVersion,
} from '../src/providers/storefront-b/storefront-b-payload';
import { parseJsonBody } from '@crm/shared/inbound';

/**
 * How each platform's order and customer payloads become an order row and a contact (pure:
 * no HTTP, no database), and which shapes are refused with 400 rather than stored or 500.
 */
function refusal(read: () => unknown) {
  try {
    read();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, code: error.code, error: error.error, message: error.message };
  }
  throw new Error('expected a 400');
}

describe('storefront A payloads', () => {
  const order = {
    id: 450789469,
    admin_graphql_api_id: 'gid://storefront-a/Order/450789469',
    name: '#1001',
    order_number: 1001,
    email: ' Ann.Buyer@Example.TEST ',
    total_price: '403.00',
    currency: 'USD',
    financial_status: 'paid',
    customer: { id: 7, email: 'other@example.test', first_name: 'Ann', last_name: null },
    billing_address: { first_name: 'Billing', last_name: 'Buyer', phone: '+1 555 0100' },
  };

  it('an order: id, display number, lower-cased email, total, currency, financial status, buyer', () => {
    expect(readStorefrontAOrder(order)).toEqual({
      externalOrderId: '450789469',
      orderNumber: '#1001',
      email: 'ann.buyer@example.test',
      total: '403.00',
      currency: 'USD',
      status: 'paid',
      customer: {
        email: 'ann.buyer@example.test',
        firstName: 'Ann',
        lastName: 'Buyer',
        phone: '+1 555 0100',
      },
      payload: order,
    });
  });

  it('an order without an email has no buyer contact; blanks become null', () => {
    const read = readStorefrontAOrder({
      id: '12',
      email: '',
      name: null,
      order_number: 12,
      total_price: 5,
      customer: null,
    });
    expect(read).toMatchObject({
      externalOrderId: '12',
      orderNumber: '12',
      email: null,
      total: '5',
      currency: null,
      status: null,
      customer: null,
    });
  });

  it('an id beyond 2^53 is keyed by its exact text id, or refused when there is none', () => {
    const big = JSON.parse(
      '{"id":820982911946154508,"admin_graphql_api_id":"gid://storefront-a/Order/820982911946154508"}',
    );
    expect(readStorefrontAOrder(big).externalOrderId).toBe('820982911946154508');
    expect(
      refusal(() => readStorefrontAOrder(JSON.parse('{"id":820982911946154508}'))),
    ).toMatchObject({
      status: 400,
      message: 'The record id is too large to be read exactly',
    });
  });

  it('refuses an order without an id, with a wrong-typed field, or with a non-decimal total', () => {
    for (const bad of [
      {},
      { id: '' },
      { id: -1 },
      { id: 1, email: 42 },
      { id: 1, total_price: 'ten' },
      { id: 1, total_price: '1e5' },
      { id: 1, total_price: `1${'0'.repeat(100)}` },
      { id: 1, customer: 'ann' },
      [],
      'order',
    ]) {
      expect(refusal(() => readStorefrontAOrder(bad))).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
        error: 'Webhook processing failed',
        message: 'The order payload does not have the expected shape',
      });
    }
  });

  it("reads a total of any size in decimal shape: whether it fits the column is the store's check", () => {
    for (const total of ['99999999999999.99', '100000000000000', '-0.001']) {
      expect(readStorefrontAOrder({ id: 1, total_price: total }).total).toBe(total);
    }
  });

  it('the version keying a delivery: id (exact, from the gid past 2^53) and updated_at, or null', () => {
    expect(readStorefrontAVersion({ id: 5, updated_at: '2024-10-01T10:00:00-04:00' })).toEqual({
      id: '5',
      updatedAt: '2024-10-01T10:00:00-04:00',
    });
    const big = {
      // Past 2^53: JSON.parse rounds it, the gid keeps it exact.
      id: 2 ** 64 + 1,
      admin_graphql_api_id: 'gid://storefront-a/Customer/18446744073709551617',
      updated_at: '2024-10-01T10:00:00-04:00',
    };
    expect(readStorefrontAVersion(big)).toEqual({
      id: '18446744073709551617',
      updatedAt: '2024-10-01T10:00:00-04:00',
    });
    expect(readStorefrontAVersion({ ...big, admin_graphql_api_id: null })).toBeNull();
    expect(readStorefrontAVersion({ id: 5 })).toBeNull();
    expect(readStorefrontAVersion({ id: 5, updated_at: 7 })).toBeNull();
  });

  it('a customer: its own fields first, its default address second; none without an email', () => {
    expect(
      readStorefrontACustomer({
        email: 'Cat@Example.TEST',
        first_name: 'Cat',
        last_name: '',
        phone: null,
        default_address: { last_name: 'Lee', phone: '+15550101' },
      }),
    ).toEqual({ email: 'cat@example.test', firstName: 'Cat', lastName: 'Lee', phone: '+15550101' });
    expect(readStorefrontACustomer({ email: null, first_name: 'Nobody' })).toBeNull();
  });

  it('shop domains compare case-insensitively', () => {
    expect(normaliseShopDomain(' Shop-XYZ.Example.TEST ')).toBe('shop-xyz.example.test');
  });
});

describe('storefront B payloads', () => {
  it('an order: id, number, status, total, and the billing contact', () => {
    const order = {
      id: 727,
      number: '727',
      status: 'processing',
      currency: 'EUR',
      total: '29.35',
      billing: { first_name: 'Bo', last_name: 'Berg', email: 'Bo@Example.TEST', phone: '' },
    };
    expect(readStorefrontBOrder(order)).toEqual({
      externalOrderId: '727',
      orderNumber: '727',
      email: 'bo@example.test',
      total: '29.35',
      currency: 'EUR',
      status: 'processing',
      customer: { email: 'bo@example.test', firstName: 'Bo', lastName: 'Berg', phone: null },
      payload: order,
    });
  });

  it('refuses an order without an id or with a non-decimal total', () => {
    expect(refusal(() => readStorefrontBOrder({ number: '1' })).status).toBe(400);
    expect(refusal(() => readStorefrontBOrder({ id: 1, total: 'free' })).status).toBe(400);
  });

  it('the version keying a delivery: id and date_modified_gmt (else date_modified), or null', () => {
    expect(readStorefrontBVersion({ id: 7, date_modified_gmt: '2024-10-01T14:00:00' })).toEqual({
      id: '7',
      updatedAt: '2024-10-01T14:00:00',
    });
    expect(readStorefrontBVersion({ id: 7, date_modified: '2024-10-01T16:00:00' })).toEqual({
      id: '7',
      updatedAt: '2024-10-01T16:00:00',
    });
    expect(readStorefrontBVersion({ id: 7 })).toBeNull();
    expect(readStorefrontBVersion({ date_modified_gmt: '2024-10-01T14:00:00' })).toBeNull();
    expect(readStorefrontBVersion('order')).toBeNull();
  });

  it('a customer: email from the customer, else its billing address', () => {
    expect(
      readStorefrontBCustomer({
        email: '',
        first_name: 'Di',
        billing: { email: 'DI@example.test', last_name: 'Dahl', phone: '+4670000000' },
      }),
    ).toEqual({
      email: 'di@example.test',
      firstName: 'Di',
      lastName: 'Dahl',
      phone: '+4670000000',
    });
    expect(readStorefrontBCustomer({ first_name: 'No email' })).toBeNull();
  });

  it('source URLs: trailing slashes dropped, scheme and host lower-cased, path kept', () => {
    expect(normaliseSourceUrl('https://Shop.Example.TEST/')).toBe('https://shop.example.test');
    expect(normaliseSourceUrl(' https://shop.example.test// ')).toBe('https://shop.example.test');
    expect(normaliseSourceUrl('https://shop.example.test/Store/')).toBe(
      'https://shop.example.test/Store',
    );
    expect(normaliseSourceUrl('not a url/')).toBe('not a url');
  });
});

describe('parseJsonBody, which both storefronts read their payloads with', () => {
  it('refuses a body that is not JSON with 400', () => {
    expect(refusal(() => parseJsonBody(Buffer.from('id=1&total=2')))).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
      error: 'Webhook processing failed',
      message: 'The request body is not valid JSON',
    });
  });

  it('replaces NUL and unpaired surrogates, which Postgres cannot store, with U+FFFD', () => {
    const raw = Buffer.from('{"note":"a\\u0000b","k\\u0000":"\\ud800x","ok":"\\ud83d\\ude00"}');
    expect(parseJsonBody(raw)).toEqual({ note: 'a\ufffdb', 'k\ufffd': '\ufffdx', ok: '😀' });
  });

  it('keeps a `__proto__` key as data', () => {
    const read = parseJsonBody(Buffer.from('{"__proto__":{"polluted":true}}')) as object;
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.keys(read)).toEqual(['__proto__']);
  });

  it('refuses nesting deeper than 64 levels with 400', () => {
    const deep = Buffer.from(`${'['.repeat(100)}${']'.repeat(100)}`);
    expect(refusal(() => parseJsonBody(deep)).status).toBe(400);
  });
});
