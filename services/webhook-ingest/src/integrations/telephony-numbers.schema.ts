import { z } from 'zod';
import { bodySchema, nameField, stringField } from './admin-rules';

/** Same rule as the column's CHECK. */
const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * E.164 as the telephony provider sends it (`+14155550100`). Spaces, dashes, dots and
 * parentheses people paste from a dashboard (`+1 (415) 555-0100`) are dropped first.
 */
const phoneNumberField = stringField('phone_number')
  .transform((value) => value.replace(/[\s().-]/g, ''))
  .pipe(
    z.string().regex(E164, { message: 'phone_number must be an E.164 number, e.g. +14155550100' }),
  );

export const createSchema = bodySchema({
  phone_number: phoneNumberField,
  name: nameField.optional(),
});
export type TelephonyNumberInput = z.infer<typeof createSchema>;
