import { dateTimeField, findHostileInput, renderPath, unstorableText } from '@crm/shared/http';
import { z } from 'zod';
import type { RecordError } from './ingest-result';

/**
 * Field schemas the record types share. Every message names its field and what it takes, so a
 * refused record's `{ index, error }` says what would have been valid.
 */

const storable = (value: string) => unstorableText(value) === undefined;
const whyUnstorable = (field: string) => (issue: { input?: unknown }) =>
  `${field} ${unstorableText(String(issue.input)) ?? 'cannot be stored'}`;

/** Optional text: trimmed, at most `max` characters; empty or null clears it, absent keeps it. */
export function optionalText(field: string, max: number) {
  const what = `${field} must be a string of at most ${max} characters`;
  return z
    .string({ error: what })
    .trim()
    .max(max, { error: what })
    .refine(storable, { error: whyUnstorable(field) })
    .transform((value) => (value === '' ? null : value))
    .nullish();
}

/** A required key (an sku, an external id): trimmed, 1 to `max` characters. */
export function requiredText(field: string, max: number) {
  const what = `${field} must be a string of 1 to ${max} characters`;
  return z
    .string({ error: (issue) => (issue.input == null ? `${field} is required` : what) })
    .trim()
    .min(1, { error: `${field} is required` })
    .max(max, { error: what })
    .refine(storable, { error: whyUnstorable(field) });
}

/** Optional email: trimmed and lower-cased (contacts are unique per tenant by it). */
export function optionalEmail(field: string) {
  const what = `${field} must be an email address such as ann@example.com`;
  return z
    .string({ error: what })
    .trim()
    .toLowerCase()
    .max(320, { error: what })
    .pipe(z.email({ error: what }))
    .nullish();
}

/** Optional ISO 8601 date-time with Z or an offset (years 0001..9999), as a Date. */
export function optionalDateTime(field: string) {
  return dateTimeField(field)
    .transform((value) => new Date(value))
    .nullish();
}

/** Optional one of `values`; the message lists them. */
export function optionalEnum<const T extends readonly [string, ...string[]]>(
  field: string,
  values: T,
) {
  return z.enum(values, { error: `${field} must be one of: ${values.join(', ')}` }).nullish();
}

/** Free-form key/values, storable by Postgres (no U+0000, no lone surrogate, bounded depth). */
export function customFields(field = 'custom_fields') {
  return z
    .record(z.string(), z.unknown(), { error: `${field} must be an object of key/values` })
    .superRefine((value, ctx) => {
      const issue = findHostileInput(value);
      if (issue) {
        const path = renderPath(issue.path);
        ctx.addIssue({ code: 'custom', message: `${field}.${path}: ${issue.message}` });
      }
    })
    .optional();
}

/**
 * A record of a batch: an object of exactly these fields. A key it does not know is refused
 * with the list of those it does (a typo would otherwise be dropped without a word).
 */
export function recordObject<S extends z.ZodRawShape>(name: string, shape: S) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}: a ${name} has ${known}`
        : `A ${name} must be an object with ${known}`,
  });
}

/** A batch's rows parsed with `schema`: the valid ones with their index, the others' errors. */
export function parseRecords<S extends z.ZodType>(
  schema: S,
  rows: readonly unknown[],
): { valid: Array<{ index: number; value: z.output<S> }>; errors: RecordError[] } {
  const valid: Array<{ index: number; value: z.output<S> }> = [];
  const errors: RecordError[] = [];
  rows.forEach((row, index) => {
    const result = schema.safeParse(row);
    if (result.success) valid.push({ index, value: result.data });
    else errors.push({ index, error: result.error.issues[0].message });
  });
  return { valid, errors };
}
