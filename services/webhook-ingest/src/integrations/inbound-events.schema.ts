import { INBOUND_OUTCOMES } from '@crm/shared/db';
import { z } from 'zod';

export const filtersSchema = z.object({
  provider: z
    .string({ message: 'provider must be given once' })
    .regex(/^[a-z0-9_]{1,64}$/, {
      message: 'provider must be a ledger provider key, e.g. email, storefront_a, payments_stripe',
    })
    .optional(),
  outcome: z
    .enum(INBOUND_OUTCOMES, { message: `outcome must be one of: ${INBOUND_OUTCOMES.join(', ')}` })
    .optional(),
});
export type InboundEventFilters = z.infer<typeof filtersSchema>;
