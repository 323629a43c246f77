import { z } from 'zod';
import { unprocessable } from '@crm/shared/inbound';
import type { RecordVersion } from './storefront-event';

/** A platform record id as sent: a non-empty string or a whole number. */
export const rawRecordId = z.union([
  z.string().trim().min(1).max(200),
  // Not z.int(): it refuses numbers beyond 2^53, which recordIdText resolves instead.
  z.number().nonnegative().refine(Number.isInteger, { message: 'expected a whole number id' }),
]);

/**
 * The record's version (id and update time) when the body names both and the id can be read
 * exactly; null otherwise (the delivery is then keyed by its body digest).
 */
export function recordVersion(
  id: z.infer<typeof rawRecordId> | null | undefined,
  updatedAt: string | null | undefined,
  exact?: string | null,
): RecordVersion | null {
  if (id === null || id === undefined || !updatedAt) return null;
  if (typeof id === 'number' && !Number.isSafeInteger(id) && !exact) return null;
  return { id: recordIdText(id, exact), updatedAt };
}

/**
 * The id as the text we key records by. A number beyond 2^53 was already rounded by
 * JSON.parse, so keying by it could merge two orders: `exact` (an id the platform also
 * sends as text) is used instead, and without one the delivery is refused.
 */
export function recordIdText(id: z.infer<typeof rawRecordId>, exact?: string | null): string {
  if (typeof id === 'string') return id;
  if (Number.isSafeInteger(id)) return String(id);
  if (exact) return exact;
  throw unprocessable('The record id is too large to be read exactly');
}
