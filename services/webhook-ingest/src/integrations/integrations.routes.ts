import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { inboundEventRoutes } from './inbound-events.routes';
import { messagingAccountRoutes } from './messaging-accounts.routes';
import { networkAccountRoutes } from './network-accounts.routes';
import { paymentConnectionRoutes } from './payment-connections.routes';
import { receiverRoutes } from './receivers.routes';
import { storefrontConnectionRoutes } from './storefront-connections.routes';
import { telephonyNumberRoutes } from './telephony-numbers.routes';

/**
 * The integration admin views (Session; docs/integrations.md). app.ts has already put
 * requireIdentity() and forbidViewerWrites() in front of /api/integrations, so every handler
 * here has an identity; each resource checks the write roles itself and works only inside
 * withTenant().
 */
export function integrationRoutes(ctx: ReceiverContext): Router {
  const router = Router();
  router.use('/api/integrations/network-accounts', networkAccountRoutes(ctx));
  router.use('/api/integrations/messaging-accounts', messagingAccountRoutes(ctx));
  router.use('/api/integrations/telephony-numbers', telephonyNumberRoutes(ctx));
  router.use('/api/integrations/storefront-connections', storefrontConnectionRoutes(ctx));
  router.use('/api/integrations/payment-connections', paymentConnectionRoutes(ctx));
  router.use('/api/integrations/inbound-events', inboundEventRoutes(ctx));
  router.use('/api/integrations/receivers', receiverRoutes(ctx));
  return router;
}
