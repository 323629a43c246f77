import { z } from 'zod';

/*
 * A list's time range as its query string gives it: `from` (inclusive) and `to` (exclusive),
 * ISO 8601 date-times with a time zone. crm-api's receiver-record lists and webhook-ingest's
 * ledger read it the same way.
 */
const DATE_TIME_RULE = 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-24T10:00:00Z';
const instant = (name: string) =>
  z.iso.datetime({ offset: true, message: `${name} ${DATE_TIME_RULE}` }).optional();

/** `from` (inclusive) and `to` (exclusive) on a list's time column. */
export const timeRangeFields = { from: instant('from'), to: instant('to') };

/** The time range a query string gives, checked: `from` must come before `to`. */
export const timeRangeSchema = z
  .object(timeRangeFields)
  .refine((range) => !range.from || !range.to || Date.parse(range.from) < Date.parse(range.to), {
    message: 'from must be before to',
    path: ['from'],
  })
  .transform((range) => ({
    from: range.from ? new Date(range.from) : undefined,
    to: range.to ? new Date(range.to) : undefined,
  }));
export type TimeRange = z.output<typeof timeRangeSchema>;
