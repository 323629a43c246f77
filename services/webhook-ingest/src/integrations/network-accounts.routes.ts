import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { alreadyConnected } from './admin-rules';
import { presentPlatformClaim } from './claim-proof';
import { COLUMNS, insertNetworkAccount, SORTABLE } from './network-accounts.repository';
import { createSchema } from './network-accounts.schema';
import { tenantResourceRoutes } from './tenant-resource.routes';

/**
 * /api/integrations/network-accounts: the professional-network partner accounts whose events
 * (POST /api/webhooks/network) belong to this tenant. Registering one is a claim: its events
 * reach the tenant once it is proven, by the partner delivering the account's events to the
 * claim's `verificationUrl` (docs/integrations.md, Proving an identifier).
 */
export function networkAccountRoutes(ctx: ReceiverContext): Router {
  return tenantResourceRoutes(ctx, {
    present: presentPlatformClaim(`${ctx.config.PUBLIC_BASE_URL}/api/webhooks/network`),
    table: 'network_accounts',
    columns: COLUMNS,
    sortable: SORTABLE,
    rowKey: 'account',
    notFoundMessage: 'Network account not found',
    // Removing an account also removes its stored network events (the schema cascades).
    removedMessage: 'Network account removed',
    create: {
      what: 'network account',
      schema: createSchema,
      insert: (trx, input, tenantId) => insertNetworkAccount(trx, tenantId, input),
      conflict: (input) =>
        alreadyConnected(`The network account ${input.external_account_id}`, {
          external_account_id: input.external_account_id,
        }),
      message: 'Network account connected',
    },
  });
}
