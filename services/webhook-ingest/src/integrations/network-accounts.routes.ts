import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { alreadyConnected } from './admin-rules';
import { COLUMNS, insertNetworkAccount, SORTABLE } from './network-accounts.repository';
import { createSchema } from './network-accounts.schema';
import { tenantResourceRoutes } from './tenant-resource.routes';

/**
 * /api/integrations/network-accounts: the professional-network partner accounts whose events
 * (POST /api/webhooks/network) belong to this tenant. The partner's account id is unique
 * across tenants: it is what resolves an event's tenant.
 */
export function networkAccountRoutes(ctx: ReceiverContext): Router {
  return tenantResourceRoutes(ctx, {
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
