import type { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { billingReceiver } from './billing/route';
import { emailReceiver } from './email/route';
import { messagingReceiver } from './messaging/route';
import { networkReceiver } from './network/route';
import { paymentsReceiver } from './payments/route';
import { storefrontAReceiver } from './storefront-a/route';
import { storefrontBReceiver } from './storefront-b/route';
import { telephonyReceiver } from './telephony/route';

/** SPEC.md (Inbound webhook receivers): one router per row of the receivers table. */
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
