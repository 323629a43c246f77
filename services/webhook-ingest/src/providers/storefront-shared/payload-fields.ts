import { z } from 'zod';
import { unprocessable } from '@crm/shared/inbound';

/**
 * Field readers shared by both storefronts' payload schemas. Platforms send `null`, `""` and
 * numbers-as-strings freely, so every optional field accepts those and normalises to
 * `string | null`; a field of the wrong type makes the whole delivery a 400 (after
 * verification), never a 500.
 */
const blankToNull = (value: string | number | null | undefined): string | null => {
  if (value === null || value === undefined) return null;
  const trimmed = String(value).trim();
  return trimmed === '' ? null : trimmed;
};

export const text = (max: number) => z.string().max(max).nullish().transform(blankToNull);

/** Order numbers and the like: `1001` or `"#1001"`. */
export const textOrNumber = (max: number) =>
  z
    .union([z.string().max(max), z.number()])
    .nullish()
    .transform(blankToNull);

/** Contacts are unique per tenant by lower-cased email (crm_contacts_email). */
export const email = z
  .string()
  .max(320)
  .nullish()
  .transform((value) => blankToNull(value)?.toLowerCase() ?? null);

// Only the shape is checked here (not a decimal: 400). Whether it fits the column it is stored
// in is checked before storing, against that column (an order total that does not fit is
// recorded as not stored, 200, rather than refused: see storefront-delivery.ts).
const DECIMAL = /^-?\d+(\.\d+)?$/;
export const decimal = z
  .union([z.string().max(100), z.number()])
  .nullish()
  .transform(blankToNull)
  .refine((value) => value === null || DECIMAL.test(value), {
    message: 'expected a decimal amount',
  });

/** Parses `payload` with `schema`, or answers 400 naming the fields at fault (never their values). */
export function readShape<T>(schema: z.ZodType<T>, payload: unknown, what: string): T {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  throw unprocessable(`The ${what} payload does not have the expected shape`, {
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.message,
    })),
  });
}
