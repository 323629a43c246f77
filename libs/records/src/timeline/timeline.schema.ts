import { createHash } from 'node:crypto';
import { errors } from '@crm/shared/http';
import { z } from 'zod';

/** What a timeline item is; see docs/timeline.md for the source and link of each. */
export const TIMELINE_TYPES = [
  'activity',
  'call',
  'chat_message',
  'deal',
  'email_click',
  'email_open',
  'email_reply',
  'email_sent',
  'form_submission',
  'order',
  'payment',
] as const;
export type TimelineType = (typeof TIMELINE_TYPES)[number];

/** Whose timeline: a lead's or a contact's. */
export type TimelineRecordKind = 'lead' | 'contact';

export const TIMELINE_DEFAULT_LIMIT = 50;
export const TIMELINE_MAX_LIMIT = 200;

export const timelineQuerySchema = z.object({
  limit: z.coerce
    .number({ message: 'limit must be a whole number' })
    .int({ message: 'limit must be a whole number' })
    .min(1, { message: 'limit must be 1 or more' })
    .max(TIMELINE_MAX_LIMIT, { message: `limit must be at most ${TIMELINE_MAX_LIMIT}` })
    .default(TIMELINE_DEFAULT_LIMIT),
  cursor: z
    .string()
    .min(1, { message: 'cursor must not be empty' })
    .max(300, { message: 'cursor is too long' })
    .optional(),
});

/**
 * Where a page ends: the last item's time (exact to the microsecond, as text in UTC), type and
 * id, the timeline's sort key.
 */
export interface TimelinePosition {
  at: string;
  type: TimelineType;
  id: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A check of the position and the record it belongs to. Not a secret: a client who forges a
 * cursor only starts its own page of a record it may read anyway at another place. It makes a
 * cursor of another record, or an edited one, a clear 400 rather than a silently wrong page.
 */
function checkOf(kind: TimelineRecordKind, recordId: string, p: TimelinePosition): string {
  return createHash('sha256')
    .update(`${kind}:${recordId}:${p.at}:${p.type}:${p.id}`)
    .digest('base64url')
    .slice(0, 16);
}

export function encodeCursor(
  kind: TimelineRecordKind,
  recordId: string,
  p: TimelinePosition,
): string {
  const text = [p.at, p.type, p.id, checkOf(kind, recordId, p)].join('|');
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The position a cursor names, or a 400 VALIDATION_ERROR when it is not this record's. */
export function decodeCursor(
  kind: TimelineRecordKind,
  recordId: string,
  cursor: string,
): TimelinePosition {
  const refuse = () =>
    errors.validation(
      `Invalid cursor: it is not a cursor of this ${kind}'s timeline (${recordId}). ` +
        "Pass the nextCursor a page of this record's timeline returned, unchanged.",
    );
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (parts.length !== 4) throw refuse();
  const [at, type, id, check] = parts;
  if (!AT.test(at) || !UUID.test(id) || !(TIMELINE_TYPES as readonly string[]).includes(type)) {
    throw refuse();
  }
  const position = { at, type: type as TimelineType, id };
  if (check !== checkOf(kind, recordId, position)) throw refuse();
  return position;
}
