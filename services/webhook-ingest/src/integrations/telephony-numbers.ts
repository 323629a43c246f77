import { Router } from 'express';
import { z } from 'zod';
import type { ReceiverContext } from '../receivers/receiver-context';
import { alreadyConnected, bodySchema, nameField, stringField } from './admin-rules';
import { tenantResourceRoutes } from './tenant-resource-routes';

const COLUMNS = ['id', 'phone_number', 'name', 'created_at'] as const;
const SORTABLE = ['created_at', 'phone_number', 'name'] as const;

/** Same rule as the column's CHECK. */
const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * E.164 as the telephony provider sends it (`+14155550100`). Spaces, dashes, dots and
 * parentheses people paste from a dashboard (`+1 (415) 555-0100`) are dropped first.
 */
const phoneNumberField = stringField('phone_number')
  .transform((value) => value.replace(/[\s().-]/g, ''))
  .pipe(
    z.string().regex(E164, { message: 'phone_number must be an E.164 number, e.g. +14155550100' }),
  );

const createSchema = bodySchema({ phone_number: phoneNumberField, name: nameField.optional() });

/**
 * /api/integrations/telephony-numbers: the tenant's phone numbers; a call to or from one of
 * them (POST /api/communications/webhooks) is logged for this tenant. A number is unique
 * across tenants.
 */
export function telephonyNumberRoutes(ctx: ReceiverContext): Router {
  return tenantResourceRoutes(ctx, {
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
      insert: (trx, input, tenantId) =>
        trx
          .insertInto('telephony_numbers')
          .values({
            tenant_id: tenantId,
            phone_number: input.phone_number,
            name: input.name ?? null,
          })
          .onConflict((oc) => oc.column('phone_number').doNothing())
          .returning([...COLUMNS])
          .executeTakeFirst(),
      conflict: (input) =>
        alreadyConnected(`The number ${input.phone_number}`, { phone_number: input.phone_number }),
      message: 'Telephony number connected',
    },
  });
}
