import { withTenant } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { paginate, parsePageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import { z } from 'zod';
import type { ReceiverContext } from '../receivers/receiver-context';
import {
  alreadyConnected,
  bodySchema,
  canManageIntegrations,
  deleteTenantRow,
  idParam,
  nameField,
  stringField,
} from './admin-rules';

const COLUMNS = ['id', 'phone_number', 'name', 'created_at'] as const;
const SORTABLE = ['created_at', 'phone_number', 'name'] as const;
const NOT_FOUND = 'Telephony number not found';

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
  const router = Router();

  router.post('/', canManageIntegrations, jsonBody(ctx.bodyLimitBytes), async (req, res) => {
    const { tenantId } = identityOf(req);
    const input = validate(createSchema, req.body, 'telephony number');
    const number = await withTenant(ctx.db, tenantId, (trx) =>
      trx
        .insertInto('telephony_numbers')
        .values({ tenant_id: tenantId, phone_number: input.phone_number, name: input.name ?? null })
        .onConflict((oc) => oc.column('phone_number').doNothing())
        .returning([...COLUMNS])
        .executeTakeFirst(),
    );
    if (!number) {
      throw alreadyConnected(`The number ${input.phone_number}`, {
        phone_number: input.phone_number,
      });
    }
    sendSuccess(res, { number }, { status: 201, message: 'Telephony number connected' });
  });

  router.get('/', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, { sortable: SORTABLE, defaultSortBy: 'created_at' });
    const result = await withTenant(ctx.db, tenantId, (trx) =>
      paginate(
        trx
          .selectFrom('telephony_numbers')
          .select([...COLUMNS])
          .where('tenant_id', '=', tenantId),
        page,
        'id',
      ),
    );
    res.json(result);
  });

  router.get('/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    const number = await withTenant(ctx.db, tenantId, (trx) =>
      trx
        .selectFrom('telephony_numbers')
        .select([...COLUMNS])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    );
    if (!number) throw errors.notFound(NOT_FOUND);
    sendSuccess(res, { number });
  });

  // Call logs already stored stay; they lose their link to the number (SET NULL).
  router.delete('/:id', canManageIntegrations, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    if (!(await deleteTenantRow(ctx.db, tenantId, 'telephony_numbers', id))) {
      throw errors.notFound(NOT_FOUND);
    }
    sendSuccess(res, { id }, { message: 'Telephony number removed' });
  });

  return router;
}
