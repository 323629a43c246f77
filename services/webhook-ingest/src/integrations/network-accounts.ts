import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { alreadyConnected, bodySchema, identifierField, nameField } from './admin-rules';
import { tenantResourceRoutes } from './tenant-resource-routes';

const COLUMNS = ['id', 'external_account_id', 'name', 'created_at'] as const;
const SORTABLE = ['created_at', 'external_account_id', 'name'] as const;

const createSchema = bodySchema({
  external_account_id: identifierField('external_account_id', 200),
  name: nameField.optional(),
});

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
      insert: (trx, input, tenantId) =>
        trx
          .insertInto('network_accounts')
          .values({
            tenant_id: tenantId,
            external_account_id: input.external_account_id,
            name: input.name ?? null,
          })
          .onConflict((oc) => oc.column('external_account_id').doNothing())
          .returning([...COLUMNS])
          .executeTakeFirst(),
      conflict: (input) =>
        alreadyConnected(`The network account ${input.external_account_id}`, {
          external_account_id: input.external_account_id,
        }),
      message: 'Network account connected',
    },
  });
}
