import { LEAD_STATUSES } from '@crm/shared/db';
import { z } from 'zod';
import { LEAD_FIELD_ERRORS, MAX_LEAD_EMAIL, MAX_LEAD_TEXT } from './lead-rules';

export { MAX_LEAD_EMAIL, MAX_LEAD_TEXT };
/** The optional text columns an import item may set. */
export const LEAD_TEXT_FIELDS = ['first_name', 'last_name', 'phone'] as const;
/**
 * Keys of an import item that are not custom fields (specified: every other key goes into
 * custom_fields).
 */
export const LEAD_ITEM_KEYS = [
  'email',
  ...LEAD_TEXT_FIELDS,
  'status',
  'lead_source',
  'source',
  'custom_fields',
] as const;

/** A refused value as an error text shows it: JSON, cut to 60 characters. */
function shownValue(value: unknown): string {
  const shown = JSON.stringify(value) ?? String(value);
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}

/**
 * The texts of an import error item (specified: `Email is required` for a row without email; the
 * others are ours, and clients already read them): the import route, the public form and MCP's
 * ingest_leads all answer these.
 */
export const LEAD_ERRORS = {
  notAnObject: 'Lead must be an object',
  emailRequired: LEAD_FIELD_ERRORS.emailRequired,
  invalidEmail: LEAD_FIELD_ERRORS.invalidEmail,
  /** Starts with `Invalid status` (as it always has), then names the value and the valid ones. */
  invalidStatus: (value: unknown) =>
    `Invalid status ${shownValue(value)}; one of: ${LEAD_STATUSES.join(', ')}`,
  notAString: LEAD_FIELD_ERRORS.notAString,
  tooLong: LEAD_FIELD_ERRORS.tooLong,
  sourceNotAString: 'Invalid source: must be a string',
  customFieldsNotAnObject: 'Invalid custom_fields: must be an object',
} as const;

const STATUSES = new Set<string>(LEAD_STATUSES);

const leadText = (key: (typeof LEAD_TEXT_FIELDS)[number]) =>
  z
    .union([z.string(), z.number()], { error: LEAD_ERRORS.notAString(key) })
    .nullish()
    .refine((value) => value == null || String(value).trim().length <= MAX_LEAD_TEXT, {
      error: LEAD_ERRORS.tooLong(key),
    })
    .meta({ description: `Stored trimmed; empty or null clears it. At most ${MAX_LEAD_TEXT}.` });

const source = z
  .string({ error: LEAD_ERRORS.sourceNotAString })
  .nullish()
  .meta({ description: 'Normalised server-side (`Web Form` -> `web_form`); default api_import' });

/**
 * One element of `leads` (a lead import item), as a zod schema: the shape the OpenAPI
 * document and MCP's ingest_leads describe. Its first issue is the text normalizeLead answers
 * for the same row: normalizeLead is this schema compiled by hand for the 10,000-row import
 * (a zod parse of every row costs more than the whole normalisation does), and a test holds the
 * two to the same verdict and text on generated rows.
 */
export const leadImportItemSchema = z.preprocess(
  // `lead_source` wins over `source`; a `source` it overrides is never looked at.
  (row) =>
    typeof row === 'object' &&
    row !== null &&
    !Array.isArray(row) &&
    (row as Record<string, unknown>).lead_source != null
      ? { ...row, source: undefined }
      : row,
  z
    .object(
      {
        email: z
          .string({
            error: (issue) =>
              issue.input == null ? LEAD_ERRORS.emailRequired : LEAD_ERRORS.invalidEmail,
          })
          .trim()
          .min(1, { error: LEAD_ERRORS.emailRequired })
          .toLowerCase()
          .max(MAX_LEAD_EMAIL, { error: LEAD_ERRORS.invalidEmail })
          .pipe(z.email({ error: LEAD_ERRORS.invalidEmail }))
          .meta({ description: 'Required; stored trimmed and lower-cased, unique per tenant' }),
        first_name: leadText('first_name'),
        last_name: leadText('last_name'),
        phone: leadText('phone'),
        status: z
          .string({ error: (issue) => LEAD_ERRORS.invalidStatus(issue.input) })
          .nullish()
          .refine((s) => s == null || s === '' || STATUSES.has(s.trim().toLowerCase()), {
            error: (issue) => LEAD_ERRORS.invalidStatus(issue.input),
          })
          .meta({ description: `One of ${LEAD_STATUSES.join(', ')}; default new` }),
        lead_source: source,
        source,
        custom_fields: z
          .record(z.string(), z.unknown(), { error: LEAD_ERRORS.customFieldsNotAnObject })
          .nullish()
          .meta({ description: 'Merged key by key into the stored ones' }),
      },
      { error: LEAD_ERRORS.notAnObject },
    )
    // Specified: unknown keys, such as `company`, go into custom_fields.
    .catchall(z.unknown()),
);

/** Element of the import's `data` (specified: `id`, `email`, `status`, `source`). */
export const leadResultItemSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  status: z.string().meta({ description: `One of ${LEAD_STATUSES.join(', ')}` }),
  source: z.string(),
});
export type LeadResultItem = z.infer<typeof leadResultItemSchema>;
