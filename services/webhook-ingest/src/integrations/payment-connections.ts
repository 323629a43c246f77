import { PAYMENT_PROVIDERS, withTenant, type PaymentProvider } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { Router } from 'express';
import { z } from 'zod';
import type { ReceiverContext } from '../receivers/receiver-context';
import {
  bodySchema,
  canManageIntegrations,
  idParam,
  nameField,
  someChange,
  webhookSecretField,
} from './admin-rules';
import { tenantResourceRoutes } from './tenant-resource-routes';

const NOT_FOUND = 'Payment connection not found';
const SORTABLE = ['created_at', 'provider', 'name'] as const;
// The ciphertext column is never selected; a payment connection always has a secret.
const COLUMNS = ['id', 'provider', 'name', 'created_at'] as const;

const providerField = z.enum(PAYMENT_PROVIDERS, {
  message: `provider must be one of: ${PAYMENT_PROVIDERS.join(', ')}`,
});

const createSchema = bodySchema({
  provider: providerField,
  name: nameField.optional(),
  webhookSecret: webhookSecretField(),
});

// Payment deliveries are always verified, so the secret can be rotated but not removed.
const updateSchema = someChange(
  bodySchema({
    name: nameField.nullable().optional(),
    webhookSecret: webhookSecretField(
      'webhookSecret cannot be removed: payment deliveries are always verified (delete the connection instead)',
    ).optional(),
  }),
);

const filtersSchema = z.object({ provider: providerField.optional() });

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
      trx
        .insertInto('payment_connections')
        .values({
          tenant_id: tenantId,
          provider: input.provider,
          name: input.name ?? null,
          webhook_secret_ciphertext: ctx.secrets.seal(input.webhookSecret),
        })
        .returning([...COLUMNS])
        .executeTakeFirstOrThrow(),
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
      trx
        .updateTable('payment_connections')
        .set({
          ...(change.name !== undefined && { name: change.name }),
          ...(change.webhookSecret !== undefined && {
            webhook_secret_ciphertext: ctx.secrets.seal(change.webhookSecret),
          }),
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning([...COLUMNS])
        .executeTakeFirst(),
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
