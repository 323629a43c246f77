import {
  LEAD_ERRORS,
  LEAD_FIELD_ERRORS,
  MAX_LEAD_SOURCE,
  LEAD_SORT_KEYS,
  MAX_LEAD_EMAIL,
  MAX_LEAD_TEXT,
  leadFilterFields,
  normalizeSource,
  type LeadSortKey,
} from '@crm/records';
import { LEAD_STATUSES } from '@crm/shared/db';
import { z } from 'zod';

/** The lead's own schema and rules are in @crm/records; these are the HTTP edge's. */
/** Every sortBy the list offers has an index behind it (LEAD_SORT_KEYS, migration 0018). */
export const LEAD_SORTABLE = Object.keys(LEAD_SORT_KEYS) as [LeadSortKey, ...LeadSortKey[]];
export const leadFiltersSchema = z.object(leadFilterFields);
/** A lead id in a path; anything else is answered as an unknown lead. */
export const leadIdSchema = z.uuid();

/** first_name, last_name or phone in a change: trimmed, '' or null clears it. */
const changedText = (key: 'first_name' | 'last_name' | 'phone') =>
  z
    .string({ error: LEAD_ERRORS.notAString(key) })
    .trim()
    .max(MAX_LEAD_TEXT, { error: LEAD_ERRORS.tooLong(key) })
    .nullable()
    .transform((value) => (value === '' ? null : value))
    .optional();

/**
 * PATCH /api/crm/leads/:id: the keys to change, at least one; the rules and texts of an import
 * item (LEAD_ERRORS), but an unknown key is a 400 rather than a custom field, and custom_fields
 * merge key by key into the stored ones.
 */
export const leadChangeSchema = z
  .strictObject(
    {
      email: z
        .string({ error: LEAD_ERRORS.invalidEmail })
        .trim()
        .toLowerCase()
        .max(MAX_LEAD_EMAIL, { error: LEAD_ERRORS.invalidEmail })
        .pipe(z.email({ error: LEAD_ERRORS.invalidEmail }))
        .optional(),
      first_name: changedText('first_name'),
      last_name: changedText('last_name'),
      phone: changedText('phone'),
      status: z
        .string({ error: (issue) => LEAD_ERRORS.invalidStatus(issue.input) })
        .trim()
        .toLowerCase()
        .pipe(z.enum(LEAD_STATUSES, { error: (issue) => LEAD_ERRORS.invalidStatus(issue.input) }))
        .optional(),
      source: z
        .string({ error: LEAD_ERRORS.sourceNotAString })
        .max(MAX_LEAD_SOURCE, { error: LEAD_FIELD_ERRORS.sourceTooLong })
        .transform((value, ctx) => {
          const source = normalizeSource(value);
          if (!source) {
            ctx.addIssue({ code: 'custom', message: 'Invalid source: must not be empty' });
            return z.NEVER;
          }
          return source;
        })
        .optional(),
      custom_fields: z
        .record(z.string(), z.unknown(), { error: LEAD_ERRORS.customFieldsNotAnObject })
        .optional()
        .meta({ description: 'Merged key by key into the stored ones' }),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? undefined : 'Lead change must be an object',
    },
  )
  .refine((change) => Object.keys(change).length > 0, {
    error: 'Give at least one field to change',
  });
