import type { Router } from 'express';
import type { ReceiverContext } from '../../receivers/receiver-context';
import {
  storefrontReceiver,
  type StorefrontScheme,
} from '../storefront-shared/storefront-receiver';
import {
  normaliseSourceUrl,
  readStorefrontBCustomer,
  readStorefrontBOrder,
  readStorefrontBVersion,
  STOREFRONT_B_TOPICS,
} from './storefront-b-payload';
import { isStorefrontBPing, verifyStorefrontB } from './storefront-b-signature';

/** What storefront B sends and how: the receiver's and a re-processing's. */
export const STOREFRONT_B_SCHEME: StorefrontScheme = {
  platform: 'storefront_b',
  path: '/api/commerce/webhook/storefront-b',
  headers: {
    shop: 'x-storefront-b-webhook-source',
    topic: 'x-storefront-b-webhook-topic',
  },
  normaliseShop: normaliseSourceUrl,
  verify: verifyStorefrontB,
  topics: STOREFRONT_B_TOPICS,
  readOrder: readStorefrontBOrder,
  readCustomer: readStorefrontBCustomer,
  readVersion: readStorefrontBVersion,
  isPing: isStorefrontBPing,
};

/** POST /api/commerce/webhook/storefront-b: orders and customers of a connected shop. */
export function storefrontBReceiver(ctx: ReceiverContext): Router {
  return storefrontReceiver(ctx, STOREFRONT_B_SCHEME);
}
