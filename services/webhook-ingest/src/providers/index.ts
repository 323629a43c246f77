import type { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { billingReceiver } from './billing/billing.routes';
import { emailReceiver } from './email/email.routes';
import { messagingReceiver } from './messaging/messaging.routes';
import { networkReceiver } from './network/network.routes';
import { paymentsReceiver } from './payments/payments.routes';
import { storefrontAReceiver } from './storefront-a/storefront-a.routes';
import { storefrontBReceiver } from './storefront-b/storefront-b.routes';
import { telephonyReceiver } from './telephony/telephony.routes';

/**
 * One router per specified receiver (billing, email, network, messaging, telephony, storefronts,
 * payments).
 */
export const RECEIVERS: ReadonlyArray<(ctx: ReceiverContext) => Router> = [
  billingReceiver,
  emailReceiver,
  networkReceiver,
  messagingReceiver,
  telephonyReceiver,
  storefrontAReceiver,
  storefrontBReceiver,
  paymentsReceiver,
];
