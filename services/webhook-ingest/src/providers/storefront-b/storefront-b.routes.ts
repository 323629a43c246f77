import type { Router } from 'express';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { storefrontReceiver } from '../storefront-shared/storefront-receiver';
import {
  normaliseSourceUrl,
  readStorefrontBCustomer,
  readStorefrontBOrder,
  readStorefrontBVersion,
  STOREFRONT_B_TOPICS,
} from './payload';
import { isStorefrontBPing, verifyStorefrontB } from './verify';

/** POST /api/commerce/webhook/storefront-b: orders and customers of a connected shop. */
export function storefrontBReceiver(ctx: ReceiverContext): Router {
  return storefrontReceiver(ctx, {
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
  });
}
