import { DEAL_STAGES } from '@crm/shared/db';
import { dateField, uuid } from '@crm/shared/http';
import { z } from 'zod';
import { DEAL_VALUE_PATTERN, MAX_DEAL_TITLE } from './deal-rules';

export const dealStageSchema = z.enum(DEAL_STAGES, {
  message: `stage must be one of: ${DEAL_STAGES.join(', ')}`,
});
const currencies = new Set(Intl.supportedValuesOf('currency'));

/** Filters of the deal list and the deal export: every one given must match. */
export const dealFilterFields = {
  stage: dealStageSchema.optional(),
  assigned_to: uuid('assigned_to').optional(),
};
/** What the repository filters deals by (the list also by the lead a deal belongs to). */
export type DealFilters = {
  stage?: z.infer<typeof dealStageSchema>;
  assigned_to?: string;
  lead_id?: string;
};

/** numeric(16,2): a decimal >= 0 with up to 14 digits before the point and 2 after. */
const money = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\d+(\.\d{1,2})?$/, { message: 'value must be a decimal with up to 2 places' }),
  ])
  .transform((v) => String(v))
  .refine((v) => DEAL_VALUE_PATTERN.test(v) && Number(v) >= 0, {
    message: 'value must be a number >= 0 with up to 2 decimal places',
  });

const dealFields = {
  title: z
    .string({ error: 'title is required' })
    .trim()
    .min(1, { message: 'title is required' })
    .max(MAX_DEAL_TITLE, { message: `title must be at most ${MAX_DEAL_TITLE} characters` }),
  value: money,
  currency: z
    .string()
    .transform((c) => c.toUpperCase())
    .refine((c) => currencies.has(c), { message: 'currency must be an ISO 4217 code, e.g. USD' }),
  stage: dealStageSchema,
  assigned_to: uuid('assigned_to').nullable(),
  lead_id: uuid('lead_id').nullable(),
  contact_id: uuid('contact_id').nullable(),
  expected_close_date: dateField('expected_close_date').nullable(),
  custom_fields: z.record(z.string(), z.unknown()),
};

/** A new deal (POST /api/crm/deals, migrate): title required, the rest defaulted. */
export const dealInputSchema = z.object({
  ...dealFields,
  value: dealFields.value.default('0'),
  currency: dealFields.currency.default('USD'),
  stage: dealStageSchema.default('lead'),
  assigned_to: dealFields.assigned_to.optional(),
  lead_id: dealFields.lead_id.optional(),
  contact_id: dealFields.contact_id.optional(),
  expected_close_date: dealFields.expected_close_date.optional(),
  custom_fields: dealFields.custom_fields.default({}),
});
export type DealInput = z.infer<typeof dealInputSchema>;

/** A change to a deal (PATCH): any of its fields, at least one. */
export const dealChangeSchema = z
  .object(dealFields)
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one field to change' });
export type DealChange = z.infer<typeof dealChangeSchema>;
