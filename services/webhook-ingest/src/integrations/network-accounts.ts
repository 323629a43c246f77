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
} from './admin-rules';

const COLUMNS = ['id', 'external_account_id', 'name', 'created_at'] as const;
const SORTABLE = ['created_at', 'external_account_id', 'name'] as const;
const NOT_FOUND = 'Network account not found';

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
  const router = Router();

  router.post('/', canManageIntegrations, jsonBody(ctx.bodyLimitBytes), async (req, res) => {
    const { tenantId } = identityOf(req);
    const input = validate(createSchema, req.body, 'network account');
    const account = await withTenant(ctx.db, tenantId, (trx) =>
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
    );
    if (!account) {
      throw alreadyConnected(`The network account ${input.external_account_id}`, {
        external_account_id: input.external_account_id,
      });
    }
    sendSuccess(res, { account }, { status: 201, message: 'Network account connected' });
  });

  router.get('/', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, { sortable: SORTABLE, defaultSortBy: 'created_at' });
    const result = await withTenant(ctx.db, tenantId, (trx) =>
      paginate(
        trx
          .selectFrom('network_accounts')
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
        .selectFrom('network_accounts')
        .select([...COLUMNS])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    );
    if (!account) throw errors.notFound(NOT_FOUND);
    sendSuccess(res, { account });
  });

  // Removing an account also removes its stored network events (the schema cascades).
  router.delete('/:id', canManageIntegrations, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    if (!(await deleteTenantRow(ctx.db, tenantId, 'network_accounts', id))) {
      throw errors.notFound(NOT_FOUND);
    }
    sendSuccess(res, { id }, { message: 'Network account removed' });
  });

  return router;
}
