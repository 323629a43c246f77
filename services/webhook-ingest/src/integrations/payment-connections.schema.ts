import { PAYMENT_PROVIDERS } from '@crm/shared/db';
import { z } from 'zod';
import { bodySchema, nameField, someChange, webhookSecretField } from './admin-rules';

const providerField = z.enum(PAYMENT_PROVIDERS, {
  message: `provider must be one of: ${PAYMENT_PROVIDERS.join(', ')}`,
});

export const createSchema = bodySchema({
  provider: providerField,
  name: nameField.optional(),
  webhookSecret: webhookSecretField(),
});

// Payment deliveries are always verified, so the secret can be rotated but not removed.
export const updateSchema = someChange(
  bodySchema({
    name: nameField.nullable().optional(),
    webhookSecret: webhookSecretField(
      'webhookSecret cannot be removed: payment deliveries are always verified (delete the connection instead)',
    ).optional(),
  }),
);

export const filtersSchema = z.object({ provider: providerField.optional() });
