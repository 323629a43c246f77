import { z } from 'zod';
import { optionalText, recordObject, requiredText } from '../fields';

export const MAX_SKU = 100;
export const MAX_PRODUCT_NAME = 300;
export const MAX_PRODUCT_DESCRIPTION = 10_000;

/** ISO 4217 codes the runtime knows (Intl), e.g. USD, EUR, GBP, JPY. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
/** A decimal >= 0 with at most 15 digits before the point and 6 after. */
const DECIMAL = /^\d{1,15}(\.\d{1,6})?$/;
const PRICE_RULE =
  'price must be a decimal >= 0 such as 19.99 (at most 15 digits before the point and 6 after)';

/**
 * A price as sent: a decimal string (`"19.90"`, kept exactly: the column is an unconstrained
 * numeric) or a JSON number (taken as its shortest decimal form, `19.9`). Null clears it.
 */
const price = z
  .union([z.string(), z.number()], { error: PRICE_RULE })
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? String(value) : value.trim();
    if (!DECIMAL.test(text)) {
      ctx.addIssue({ code: 'custom', message: PRICE_RULE });
      return z.NEVER;
    }
    return text;
  })
  .nullish();

const CURRENCY_RULE = 'currency must be an ISO 4217 code such as USD, EUR or GBP';
const currency = z
  .string({ error: CURRENCY_RULE })
  .trim()
  .toUpperCase()
  .refine((code) => CURRENCIES.has(code), { error: CURRENCY_RULE })
  .nullish();

/**
 * A product as MCP's ingest_products and migrate send one, upserted by `sku` (unique per
 * tenant, compared exactly). A field left out keeps the stored value; null clears it. A new
 * product is active unless `active` says otherwise.
 */
export const productInputSchema = recordObject('product', {
  sku: requiredText('sku', MAX_SKU),
  name: optionalText('name', MAX_PRODUCT_NAME),
  description: optionalText('description', MAX_PRODUCT_DESCRIPTION),
  price,
  currency,
  active: z.boolean({ error: 'active must be true or false' }).optional(),
});
export type ProductInput = z.output<typeof productInputSchema>;

/**
 * A change to one product (PATCH): name, description, price, currency, active, by the same rules;
 * at least one. The sku is the product's key and is not changed here.
 */
export const productChangeSchema = recordObject('product change', {
  name: optionalText('name', MAX_PRODUCT_NAME),
  description: optionalText('description', MAX_PRODUCT_DESCRIPTION),
  price,
  currency,
  active: z.boolean({ error: 'active must be true or false' }).optional(),
}).refine((change) => Object.keys(change).length > 0, {
  error: 'give at least one field to change',
});
export type ProductChange = z.output<typeof productChangeSchema>;

/** Element of an ingest's `data`: the stored product and whether this call created it. */
export const productResultItemSchema = z.object({
  id: z.uuid(),
  sku: z.string(),
  created: z.boolean(),
});
export type ProductResultItem = z.infer<typeof productResultItemSchema>;
