import { dealFilterFields } from '@crm/records';
import { uuid } from '@crm/shared/http';
import { z } from 'zod';

/**
 * The deal's own schemas and rules are in @crm/records; this is the HTTP edge's query string of
 * the list. Specified: `limit` defaults to 100; our documented maximum is 1,000.
 */
export const DEALS_DEFAULT_LIMIT = 100;
export const DEALS_MAX_LIMIT = 1000;

export const listQuery = z.object({
  ...dealFilterFields,
  /** A lead's deals (its panel in the console); read by crm_deals_by_lead. */
  lead_id: uuid('lead_id').optional(),
  limit: z.coerce
    .number({ message: 'limit must be a whole number' })
    .int({ message: 'limit must be a whole number' })
    .min(1, { message: 'limit must be at least 1' })
    .max(DEALS_MAX_LIMIT, { message: `limit must be at most ${DEALS_MAX_LIMIT}` })
    .default(DEALS_DEFAULT_LIMIT),
  cursor: z
    .string({ message: 'cursor must be a string' })
    .min(1, { message: 'cursor must not be empty' })
    .max(1000, { message: 'cursor is too long' })
    .optional()
    .meta({ description: 'nextCursor of the previous answer: the deals after it.' }),
});
