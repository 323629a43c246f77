import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import {
  alreadyConnected,
  bodySchema,
  identifierField,
  nameField,
  stringField,
} from './admin-rules';
import { tenantResourceRoutes } from './tenant-resource-routes';

const COLUMNS = ['id', 'phone_number_id', 'display_phone_number', 'name', 'created_at'] as const;
const SORTABLE = ['created_at', 'phone_number_id', 'name'] as const;

const createSchema = bodySchema({
  phone_number_id: identifierField('phone_number_id', 100),
  display_phone_number: stringField('display_phone_number')
    .trim()
    .min(1, { message: 'display_phone_number must not be empty' })
    .max(50, { message: 'display_phone_number must be at most 50 characters' })
    .regex(/^[+0-9 ().-]+$/, {
      message: 'display_phone_number may hold only digits, spaces and + - . ( )',
    })
    .optional(),
  name: nameField.optional(),
});

/**
 * /api/integrations/messaging-accounts: the messaging cloud API business numbers whose
 * deliveries (POST /api/messaging/webhooks/cloud-api) belong to this tenant, keyed by the
 * API's `phone_number_id`, which is unique across tenants.
 */
export function messagingAccountRoutes(ctx: ReceiverContext): Router {
  return tenantResourceRoutes(ctx, {
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
      insert: (trx, input, tenantId) =>
        trx
          .insertInto('messaging_accounts')
          .values({
            tenant_id: tenantId,
            phone_number_id: input.phone_number_id,
            display_phone_number: input.display_phone_number ?? null,
            name: input.name ?? null,
          })
          .onConflict((oc) => oc.column('phone_number_id').doNothing())
          .returning([...COLUMNS])
          .executeTakeFirst(),
      conflict: (input) =>
        alreadyConnected(`The phone_number_id ${input.phone_number_id}`, {
          phone_number_id: input.phone_number_id,
        }),
      message: 'Messaging account connected',
    },
  });
}
