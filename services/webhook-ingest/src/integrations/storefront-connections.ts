import { STOREFRONT_PLATFORMS, withTenant } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { Router } from 'express';
import { sql } from 'kysely';
import { z } from 'zod';
import type { ReceiverContext } from '../receivers/receiver-context';
import {
  alreadyConnected,
  bodySchema,
  canManageIntegrations,
  idParam,
  nameField,
  someChange,
  stringField,
  webhookSecretField,
} from './admin-rules';
import { shopIdentifierFor } from './shop-identifier';
import { tenantResourceRoutes } from './tenant-resource-routes';

type Platform = (typeof STOREFRONT_PLATFORMS)[number];

const NOT_FOUND = 'Storefront connection not found';
const SORTABLE = ['created_at', 'platform', 'shop_identifier', 'name'] as const;
// The ciphertext column is never selected: only whether there is one.
const COLUMNS = [
  'id',
  'platform',
  'shop_identifier',
  'name',
  sql<boolean>`webhook_secret_ciphertext IS NOT NULL`.as('hasWebhookSecret'),
  'created_at',
] as const;

const platformField = z.enum(STOREFRONT_PLATFORMS, {
  message: `platform must be one of: ${STOREFRONT_PLATFORMS.join(', ')}`,
});

const createSchema = bodySchema({
  platform: platformField,
  shop_identifier: stringField('shop_identifier'),
  name: nameField.optional(),
  webhookSecret: webhookSecretField().optional(),
}).transform((input, ctx) => {
  const shop = shopIdentifierFor(input.platform, input.shop_identifier);
  if (!shop.ok) {
    ctx.addIssue({ code: 'custom', message: shop.message, path: ['shop_identifier'] });
    return z.NEVER;
  }
  return { ...input, shop_identifier: shop.value };
});

// platform and shop_identifier are what deliveries are matched by: to move a connection to
// another shop, delete it and connect the new one.
const updateSchema = someChange(
  bodySchema({
    name: nameField.nullable().optional(),
    webhookSecret: webhookSecretField().nullable().optional(),
  }),
);

const filtersSchema = z.object({ platform: platformField.optional() });

/**
 * /api/integrations/storefront-connections: the tenant's shops on storefront platforms A and
 * B. A shop (platform + identifier) is unique across tenants: it is how an order webhook
 * finds its tenant. The optional webhook secret is sealed at rest and never returned; with
 * one stored the receiver verifies every delivery, without one it accepts them unverified
 * (SPEC.md).
 */
export function storefrontConnectionRoutes(ctx: ReceiverContext): Router {
  const webhookUrlOf = (platform: Platform) =>
    `${ctx.config.PUBLIC_BASE_URL}/api/commerce/webhook/${platform.replace('_', '-')}`;
  const present = <T extends { platform: Platform }>(row: T) => ({
    ...row,
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
        trx
          .insertInto('storefront_connections')
          .values({
            tenant_id: tenantId,
            platform: input.platform,
            shop_identifier: input.shop_identifier,
            name: input.name ?? null,
            webhook_secret_ciphertext:
              input.webhookSecret === undefined ? null : ctx.secrets.seal(input.webhookSecret),
          })
          .onConflict((oc) => oc.columns(['platform', 'shop_identifier']).doNothing())
          .returning([...COLUMNS])
          .executeTakeFirst(),
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
      trx
        .updateTable('storefront_connections')
        .set({
          ...(change.name !== undefined && { name: change.name }),
          // null clears the secret: deliveries are then accepted unverified again.
          ...(change.webhookSecret !== undefined && {
            webhook_secret_ciphertext:
              change.webhookSecret === null ? null : ctx.secrets.seal(change.webhookSecret),
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
      { message: 'Storefront connection updated' },
    );
  });

  return router;
}
