import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { alreadyConnected } from './admin-rules';
import { presentPlatformClaim } from './claim-proof';
import { COLUMNS, insertMessagingAccount, SORTABLE } from './messaging-accounts.repository';
import { createSchema } from './messaging-accounts.schema';
import { tenantResourceRoutes } from './tenant-resource.routes';

/**
 * /api/integrations/messaging-accounts: the messaging cloud API business numbers whose
 * deliveries (POST /api/messaging/webhooks/cloud-api) belong to this tenant, keyed by the
 * API's `phone_number_id`. Registering one is a claim: deliveries for the number reach the
 * tenant once it is proven, by the provider delivering the number's webhooks to the claim's
 * `verificationUrl` (docs/integrations.md, Proving an identifier).
 */
export function messagingAccountRoutes(ctx: ReceiverContext): Router {
  return tenantResourceRoutes(ctx, {
    present: presentPlatformClaim(`${ctx.config.PUBLIC_BASE_URL}/api/messaging/webhooks/cloud-api`),
    table: 'messaging_accounts',
    columns: COLUMNS,
    sortable: SORTABLE,
    rowKey: 'account',
    notFoundMessage: 'Messaging account not found',
    // Conversations already stored stay; they lose their link to the account (SET NULL).
    removedMessage: 'Messaging account removed',
    create: {
      what: 'messaging account',
      schema: createSchema,
      insert: (trx, input, tenantId) => insertMessagingAccount(trx, tenantId, input),
      conflict: (input) =>
        alreadyConnected(`The phone_number_id ${input.phone_number_id}`, {
          phone_number_id: input.phone_number_id,
        }),
      message: 'Messaging account connected',
    },
  });
}
