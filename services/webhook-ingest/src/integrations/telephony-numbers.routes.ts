import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { alreadyConnected } from './admin-rules';
import { presentPlatformClaim } from './claim-proof';
import { COLUMNS, insertTelephonyNumber, SORTABLE } from './telephony-numbers.repository';
import { createSchema } from './telephony-numbers.schema';
import { tenantResourceRoutes } from './tenant-resource.routes';

/**
 * /api/integrations/telephony-numbers: the tenant's phone numbers; a call to or from one of
 * them (POST /api/communications/webhooks) is logged for this tenant once its claim is proven,
 * by a status callback of the number signed for the claim's `verificationUrl`
 * (docs/integrations.md, Proving an identifier).
 */
export function telephonyNumberRoutes(ctx: ReceiverContext): Router {
  return tenantResourceRoutes(ctx, {
    present: presentPlatformClaim(`${ctx.config.PUBLIC_BASE_URL}/api/communications/webhooks`),
    table: 'telephony_numbers',
    columns: COLUMNS,
    sortable: SORTABLE,
    rowKey: 'number',
    notFoundMessage: 'Telephony number not found',
    // Call logs already stored stay; they lose their link to the number (SET NULL).
    removedMessage: 'Telephony number removed',
    create: {
      what: 'telephony number',
      schema: createSchema,
      insert: (trx, input, tenantId) => insertTelephonyNumber(trx, tenantId, input),
      conflict: (input) =>
        alreadyConnected(`The number ${input.phone_number}`, { phone_number: input.phone_number }),
      message: 'Telephony number connected',
    },
  });
}
