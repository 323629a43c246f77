import type { Router } from 'express';
import type { ReceiverContext } from '../../receivers/receiver-context';
import {
  storefrontReceiver,
  type StorefrontScheme,
} from '../storefront-shared/storefront-receiver';
import {
  normaliseShopDomain,
  readStorefrontACustomer,
  readStorefrontAOrder,
  readStorefrontAVersion,
  STOREFRONT_A_TOPICS,
} from './storefront-a-payload';
import { verifyStorefrontA } from './storefront-a-signature';

/** What storefront A sends and how: the receiver's and a re-processing's. */
export const STOREFRONT_A_SCHEME: StorefrontScheme = {
  platform: 'storefront_a',
  path: '/api/commerce/webhook/storefront-a',
  headers: {
    shop: 'x-storefront-a-shop-domain',
    topic: 'x-storefront-a-topic',
  },
  normaliseShop: normaliseShopDomain,
  verify: verifyStorefrontA,
  topics: STOREFRONT_A_TOPICS,
  readOrder: readStorefrontAOrder,
  readCustomer: readStorefrontACustomer,
  readVersion: readStorefrontAVersion,
};

/** POST /api/commerce/webhook/storefront-a: orders and customers of a connected shop. */
export function storefrontAReceiver(ctx: ReceiverContext): Router {
  return storefrontReceiver(ctx, STOREFRONT_A_SCHEME);
}
