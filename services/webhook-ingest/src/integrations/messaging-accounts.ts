import { withTenant } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { paginate, parsePageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import {
  alreadyConnected,
  bodySchema,
  canManageIntegrations,
  deleteTenantRow,
  identifierField,
  idParam,
  nameField,
  stringField,
} from './admin-rules';

const COLUMNS = ['id', 'phone_number_id', 'display_phone_number', 'name', 'created_at'] as const;
const SORTABLE = ['created_at', 'phone_number_id', 'name'] as const;
const NOT_FOUND = 'Messaging account not found';

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
  const router = Router();

  router.post('/', canManageIntegrations, jsonBody(ctx.bodyLimitBytes), async (req, res) => {
    const { tenantId } = identityOf(req);
    const input = validate(createSchema, req.body, 'messaging account');
    const account = await withTenant(ctx.db, tenantId, (trx) =>
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
    );
    if (!account) {
      throw alreadyConnected(`The phone_number_id ${input.phone_number_id}`, {
        phone_number_id: input.phone_number_id,
      });
    }
    sendSuccess(res, { account }, { status: 201, message: 'Messaging account connected' });
  });

  router.get('/', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, { sortable: SORTABLE, defaultSortBy: 'created_at' });
    const result = await withTenant(ctx.db, tenantId, (trx) =>
      paginate(
        trx
          .selectFrom('messaging_accounts')
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
    const account = await withTenant(ctx.db, tenantId, (trx) =>
      trx
        .selectFrom('messaging_accounts')
        .select([...COLUMNS])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    );
    if (!account) throw errors.notFound(NOT_FOUND);
    sendSuccess(res, { account });
  });

  // Conversations already stored stay; they lose their link to the account (SET NULL).
  router.delete('/:id', canManageIntegrations, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    if (!(await deleteTenantRow(ctx.db, tenantId, 'messaging_accounts', id))) {
      throw errors.notFound(NOT_FOUND);
    }
    sendSuccess(res, { id }, { message: 'Messaging account removed' });
  });

  return router;
}
