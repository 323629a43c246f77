import { withTenant, type PaymentProvider } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { canManageIntegrations, idParam } from './admin-rules';
import { COLUMNS, insertPaymentConnection, SORTABLE } from './payment-connections.repository';
import { createSchema, filtersSchema, updateSchema } from './payment-connections.schema';
import { updateConnection } from './tenant-resource.repository';
import { tenantResourceRoutes } from './tenant-resource.routes';

const NOT_FOUND = 'Payment connection not found';

/**
 * /api/integrations/payment-connections: the tenant's accounts at payment providers. Each
 * connection gets its own receiver URL (`webhookUrl`, to register in the provider's
 * dashboard): the connection id in it finds the tenant and the secret that verifies the
 * delivery. The secret is sealed at rest and never returned.
 */
export function paymentConnectionRoutes(ctx: ReceiverContext): Router {
  const present = <T extends { id: string; provider: PaymentProvider }>(row: T) => ({
    ...row,
    hasWebhookSecret: true as const,
    webhookUrl: `${ctx.config.PUBLIC_BASE_URL}/api/payments/webhook?provider=${row.provider}&connection=${row.id}`,
  });

  const router = tenantResourceRoutes(ctx, {
    table: 'payment_connections',
    columns: COLUMNS,
    sortable: SORTABLE,
    rowKey: 'connection',
    notFoundMessage: NOT_FOUND,
    // Removing a connection also removes its stored payment events (the schema cascades).
    removedMessage: 'Payment connection removed',
    present,
    listFilter: (req) => {
      const filters = validate(filtersSchema, { provider: req.query.provider }, 'filters');
      return (rows) => (filters.provider ? rows.where('provider', '=', filters.provider) : rows);
    },
  });

  // Not the shared create: a payment connection has no unique key but its generated id (the
  // receiver URL addresses it by id), so there is no conflict to answer with a 409.
  router.post('/', canManageIntegrations, jsonBody(ctx.bodyLimitBytes), async (req, res) => {
    const { tenantId } = identityOf(req);
    const input = validate(createSchema, req.body, 'payment connection');
    const connection = await withTenant(ctx.db, tenantId, (trx) =>
      insertPaymentConnection(trx, tenantId, {
        provider: input.provider,
        name: input.name ?? null,
        webhookSecretCiphertext: ctx.secrets.seal(input.webhookSecret),
      }),
    );
    sendSuccess(
      res,
      { connection: present(connection) },
      { status: 201, message: 'Payment provider connected' },
    );
  });

  router.patch('/:id', canManageIntegrations, jsonBody(ctx.bodyLimitBytes), async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    const change = validate(updateSchema, req.body, 'payment connection change');
    const connection = await withTenant(ctx.db, tenantId, (trx) =>
      updateConnection(trx, { table: 'payment_connections', columns: COLUMNS }, tenantId, id, {
        name: change.name,
        webhookSecretCiphertext:
          change.webhookSecret === undefined ? undefined : ctx.secrets.seal(change.webhookSecret),
      }),
    );
    if (!connection) throw errors.notFound(NOT_FOUND);
    sendSuccess(
      res,
      { connection: present(connection) },
      { message: 'Payment connection updated' },
    );
  });

  return router;
}
