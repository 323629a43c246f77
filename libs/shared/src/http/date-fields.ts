import { z } from 'zod';

/**
 * Dates and timestamps a client sends, limited to what Postgres stores and the ISO form can
 * say: years 0001 to 9999. zod's ISO formats take year 0000, which Postgres refuses (`date`
 * has no year 0), so without this a `0000-01-01` reached the INSERT and answered 500.
 */
export const MIN_DATE = '0001-01-01';
export const MAX_DATE = '9999-12-31';

const inRange = (value: string) => !value.startsWith('0000');

/**
 * A calendar date `YYYY-MM-DD` (a real day: no 2023-02-29) in 0001-01-01..9999-12-31. The
 * messages name `field`: `<field> must be a date (YYYY-MM-DD)`, `<field> must be between ...`.
 */
export function dateField(field: string) {
  return z.iso
    .date({ message: `${field} must be a date (YYYY-MM-DD)` })
    .refine(inRange, { message: `${field} must be between ${MIN_DATE} and ${MAX_DATE}` });
}

/**
 * An ISO 8601 date-time with `Z` or an offset (`2024-05-01T12:00:00Z`, `...+02:00`), years
 * 0001..9999, for a `timestamptz` column.
 */
export function dateTimeField(field: string) {
  return z.iso
    .datetime({
      offset: true,
      message: `${field} must be a date-time (ISO 8601 with Z or an offset, e.g. 2024-05-01T12:00:00Z)`,
    })
    .refine(inRange, { message: `${field} must be between ${MIN_DATE} and ${MAX_DATE}` });
}
