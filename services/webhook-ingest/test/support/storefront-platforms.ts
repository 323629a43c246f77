import { randomInt, randomUUID } from 'node:crypto';

/** What a test needs to know of an order it built, whatever the platform's field names. */
export interface OrderFacts {
  id: number;
  /** The buyer's email as sent (the platforms send mixed case; it is stored lowercased). */
  email: string;
  orderNumber: string;
  total: string;
  currency: string;
  status: string;
  /** The signed update time that, with the id, keys the delivery in the ledger. */
  updatedAt: string;
}

export interface OrderOptions {
  email?: string;
  total?: string;
  firstName?: string;
  lastName?: string | null;
  /** More top-level fields (a note, say). */
  extra?: Record<string, unknown>;
}

export interface CustomerOptions {
  email: string | null;
  firstName?: string;
  lastName?: string;
  /** Sent in the customer's address (billing or default address), not at the top level. */
  addressPhone?: string;
}

/**
 * One storefront platform as its receiver sees it: route, headers, how shops are named and
 * what its orders and customers look like. Both platforms share one receiver flow, so one
 * suite runs against each row of STOREFRONT_PLATFORMS.
 */
export interface StorefrontPlatform {
  label: string;
  provider: 'storefront_a' | 'storefront_b';
  /** The other platform: its connections must never match this platform's deliveries. */
  otherProvider: 'storefront_a' | 'storefront_b';
  path: string;
  headers: { shop: string; topic: string; deliveryId: string; signature: string };
  newSecret(): string;
  /** A fresh connection's `shop_identifier`, in the form connections store it. */
  newShopIdentifier(): string;
  /** The shop header the platform sends for a connection. */
  shopHeader(identifier: string): string;
  /** Other spellings of the shop header that must name the same connection. */
  shopHeaderVariants(identifier: string): string[];
  topics: {
    orderCreated: string;
    orderUpdated: string;
    customerCreated: string;
    customerUpdated: string;
    /** Two topics the receiver does not store. */
    unstored: [string, string];
  };
  /** The buyer's name and phone in every order `order()` builds (unless overridden). */
  buyer: { first_name: string; last_name: string; phone: string };
  /** An order with an id and buyer email unique to the call. */
  order(options?: OrderOptions): Record<string, unknown>;
  facts(order: Record<string, unknown>): OrderFacts;
  /** The same order at a later version, and the status and stored total it then has. */
  laterVersion(order: Record<string, unknown>): {
    payload: Record<string, unknown>;
    status: string;
    storedTotal: string;
  };
  /** The order without the update time that versions it. */
  withoutVersion(order: Record<string, unknown>): Record<string, unknown>;
  customer(options: CustomerOptions): Record<string, unknown>;
}

const tag = () => randomUUID().slice(0, 8);

const storefrontA: StorefrontPlatform = {
  label: 'storefront A',
  provider: 'storefront_a',
  otherProvider: 'storefront_b',
  path: '/api/commerce/webhook/storefront-a',
  headers: {
    shop: 'x-storefront-a-shop-domain',
    topic: 'x-storefront-a-topic',
    deliveryId: 'x-storefront-a-webhook-id',
    signature: 'x-storefront-a-hmac-sha256',
  },
  newSecret: () => `shpss_${randomUUID()}`,
  newShopIdentifier: () => `shop-${tag()}.example.test`,
  shopHeader: (domain) => domain,
  shopHeaderVariants: (domain) => [domain.toUpperCase()],
  topics: {
    orderCreated: 'orders/create',
    orderUpdated: 'orders/paid',
    customerCreated: 'customers/create',
    customerUpdated: 'customers/update',
    unstored: ['products/create', 'products/update'],
  },
  buyer: { first_name: 'Ann', last_name: 'Buyer', phone: '+15550100' },
  order(options = {}) {
    const id = randomInt(1, 2 ** 47);
    const t = tag();
    return {
      id,
      admin_graphql_api_id: `gid://storefront-a/Order/${id}`,
      name: `#${t}`,
      order_number: 1001,
      email: options.email ?? `Ann.Buyer+${t}@Example.TEST`,
      total_price: options.total ?? '403.50',
      currency: 'USD',
      financial_status: 'pending',
      updated_at: '2024-10-01T10:00:00-04:00',
      customer: {
        id: 7,
        email: `ann.buyer+${t}@example.test`,
        first_name: options.firstName ?? 'Ann',
        last_name: options.lastName === undefined ? 'Buyer' : options.lastName,
        phone: '+15550100',
      },
      line_items: [{ title: 'Lamp', quantity: 1, price: '403.50' }],
      ...options.extra,
    };
  },
  facts: (order) => ({
    id: order.id as number,
    email: order.email as string,
    orderNumber: order.name as string,
    total: order.total_price as string,
    currency: order.currency as string,
    status: order.financial_status as string,
    updatedAt: order.updated_at as string,
  }),
  laterVersion: (order) => ({
    payload: {
      ...order,
      financial_status: 'paid',
      total_price: '410',
      updated_at: '2024-10-01T10:05:00-04:00',
    },
    status: 'paid',
    storedTotal: '410.00',
  }),
  withoutVersion: ({ updated_at: _updatedAt, ...undated }) => undated,
  customer: ({ email, firstName, lastName, addressPhone }) => ({
    id: 42,
    email,
    first_name: firstName,
    last_name: lastName,
    phone: null,
    default_address: { phone: addressPhone },
  }),
};

const storefrontB: StorefrontPlatform = {
  label: 'storefront B',
  provider: 'storefront_b',
  otherProvider: 'storefront_a',
  path: '/api/commerce/webhook/storefront-b',
  headers: {
    shop: 'x-storefront-b-webhook-source',
    topic: 'x-storefront-b-webhook-topic',
    deliveryId: 'x-storefront-b-webhook-delivery-id',
    signature: 'x-storefront-b-webhook-signature',
  },
  newSecret: () => `wc_${randomUUID()}`,
  /** The shop URL without a trailing slash. */
  newShopIdentifier: () => `https://shop-${tag()}.example.test`,
  /** Storefront B sends its source with a trailing slash. */
  shopHeader: (source) => `${source}/`,
  shopHeaderVariants: (source) => [source, `${source}//`, source.toUpperCase()],
  topics: {
    orderCreated: 'order.created',
    orderUpdated: 'order.updated',
    customerCreated: 'customer.created',
    customerUpdated: 'customer.updated',
    unstored: ['product.created', 'product.updated'],
  },
  buyer: { first_name: 'Bo', last_name: 'Berg', phone: '+46700000000' },
  order(options = {}) {
    const id = randomInt(1, 2 ** 47);
    return {
      id,
      number: String(id),
      status: 'processing',
      currency: 'EUR',
      total: options.total ?? '29.35',
      date_modified_gmt: '2024-10-01T14:00:00',
      customer_id: 0,
      billing: {
        first_name: options.firstName ?? 'Bo',
        last_name: options.lastName === undefined ? 'Berg' : options.lastName,
        email: options.email ?? `Bo.Berg+${tag()}@Example.TEST`,
        phone: '+46700000000',
      },
      line_items: [{ name: 'Mug', quantity: 2, total: '29.35' }],
      ...options.extra,
    };
  },
  facts: (order) => ({
    id: order.id as number,
    email: (order.billing as { email: string }).email,
    orderNumber: order.number as string,
    total: order.total as string,
    currency: order.currency as string,
    status: order.status as string,
    updatedAt: order.date_modified_gmt as string,
  }),
  laterVersion: (order) => ({
    payload: {
      ...order,
      status: 'completed',
      total: '31',
      date_modified_gmt: '2024-10-01T14:05:00',
    },
    status: 'completed',
    storedTotal: '31.00',
  }),
  withoutVersion: ({ date_modified_gmt: _modified, ...undated }) => undated,
  customer: ({ email, firstName, lastName, addressPhone }) => ({
    id: 25,
    email,
    first_name: firstName,
    last_name: lastName,
    billing: { phone: addressPhone },
  }),
};

export const STOREFRONT_PLATFORMS: readonly StorefrontPlatform[] = [storefrontA, storefrontB];
export const STOREFRONT_B = storefrontB;
