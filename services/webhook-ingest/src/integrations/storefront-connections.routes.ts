import { withTenant } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { alreadyConnected, canManageIntegrations, idParam } from './admin-rules';
import { storefrontStatus } from './claim-proof';
import { COLUMNS, insertStorefrontConnection, SORTABLE } from './storefront-connections.repository';
import {
  createSchema,
  filtersSchema,
  updateSchema,
  type Platform,
} from './storefront-connections.schema';
import { updateConnection } from './tenant-resource.repository';
import { tenantResourceRoutes } from './tenant-resource.routes';

const NOT_FOUND = 'Storefront connection not found';

/**
 * /api/integrations/storefront-connections: the tenant's shops on storefront platforms A and
 * B. A shop (platform + identifier) is unique within a tenant; several tenants may connect
 * one, and a delivery goes to the connection whose own secret verifies it (a connection
 * without a secret only while it is the shop's only one: docs/integrations.md, Proving an
 * identifier). The optional webhook secret is sealed at rest and never returned.
 */
export function storefrontConnectionRoutes(ctx: ReceiverContext): Router {
  const webhookUrlOf = (platform: Platform) =>
    `${ctx.config.PUBLIC_BASE_URL}/api/commerce/webhook/${platform.replace('_', '-')}`;
  const present = <
    T extends { platform: Platform; proven_at: Date | null; hasWebhookSecret: boolean },
  >(
    row: T,
  ) => ({
    ...row,
    status: storefrontStatus(row),
    webhookUrl: webhookUrlOf(row.platform),
  });

  const router = tenantResourceRoutes(ctx, {
    table: 'storefront_connections',
    columns: COLUMNS,
    sortable: SORTABLE,
    rowKey: 'connection',
    notFoundMessage: NOT_FOUND,
    // Removing a connection also removes its stored orders (the schema cascades).
    removedMessage: 'Storefront connection removed',
    present,
    listFilter: (req) => {
      const filters = validate(filtersSchema, { platform: req.query.platform }, 'filters');
      return (rows) => (filters.platform ? rows.where('platform', '=', filters.platform) : rows);
    },
    create: {
      what: 'storefront connection',
      schema: createSchema,
      insert: (trx, input, tenantId) =>
        insertStorefrontConnection(trx, tenantId, {
          platform: input.platform,
          shop_identifier: input.shop_identifier,
          name: input.name ?? null,
          webhookSecretCiphertext:
            input.webhookSecret === undefined ? null : ctx.secrets.seal(input.webhookSecret),
        }),
      conflict: (input) =>
        alreadyConnected(`The ${input.platform} shop ${input.shop_identifier}`, {
          platform: input.platform,
          shop_identifier: input.shop_identifier,
        }),
      message: 'Storefront connected',
    },
  });

  router.patch('/:id', canManageIntegrations, jsonBody(ctx.bodyLimitBytes), async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    const change = validate(updateSchema, req.body, 'storefront connection change');
    const connection = await withTenant(ctx.db, tenantId, (trx) =>
      updateConnection(trx, { table: 'storefront_connections', columns: COLUMNS }, tenantId, id, {
        name: change.name,
        // null clears the secret: deliveries are then accepted unverified again.
        webhookSecretCiphertext:
          change.webhookSecret === undefined || change.webhookSecret === null
            ? change.webhookSecret
            : ctx.secrets.seal(change.webhookSecret),
      }),
    );
    if (!connection) throw errors.notFound(NOT_FOUND);
    sendSuccess(
      res,
      { connection: present(connection) },
      { message: 'Storefront connection updated' },
    );
  });

  return router;
}
