import { STOREFRONT_PLATFORMS } from '@crm/shared/db';
import { z } from 'zod';
import { bodySchema, nameField, someChange, stringField, webhookSecretField } from './admin-rules';
import { shopIdentifierFor } from './shop-identifier';

export type Platform = (typeof STOREFRONT_PLATFORMS)[number];

const platformField = z.enum(STOREFRONT_PLATFORMS, {
  message: `platform must be one of: ${STOREFRONT_PLATFORMS.join(', ')}`,
});

export const createSchema = bodySchema({
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
export type StorefrontConnectionInput = z.infer<typeof createSchema>;

// platform and shop_identifier are what deliveries are matched by: to move a connection to
// another shop, delete it and connect the new one.
export const updateSchema = someChange(
  bodySchema({
    name: nameField.nullable().optional(),
    webhookSecret: webhookSecretField().nullable().optional(),
  }),
);

export const filtersSchema = z.object({ platform: platformField.optional() });
