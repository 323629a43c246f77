import { unprocessable } from '../../receivers/verification';

// Unpaired UTF-16 surrogates: JSON.stringify writes them as `\udXXX` escapes, which jsonb refuses.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/*
 * Making provider values storable. Shared by the email and network receivers; it belongs in
 * src/receivers/ once the receivers there are settled.
 */

/**
 * Postgres text cannot hold NUL and jsonb refuses `\u0000` and unpaired surrogates, so a
 * provider string carrying them would fail the INSERT (a 500 for something the sender sent).
 * They are replaced by U+FFFD; the exact bytes stay in the ledger's raw body.
 */
export function storableText(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
}

/** A parsed JSON value as jsonb input text, keys and strings made storable. */
export function storableJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'string') return storableText(item);
      if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
        return Object.fromEntries(
          Object.entries(item).map(([key, inner]) => [storableText(key), inner]),
        );
      }
      return item;
    });
  } catch {
    // Only nesting deeper than the stack allows gets here: the sender's problem, not ours.
    throw unprocessable('The event is nested too deeply to store');
  }
}

/**
 * A provider timestamp as sent (ISO 8601 string) for a timestamptz column; anything unreadable
 * or outside years 1..9999 (which the ISO form Postgres reads cannot carry) is null, and the
 * stored payload or metadata keeps the original.
 */
export function storableTimestamp(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const date = new Date(value);
  const year = date.getUTCFullYear();
  return Number.isNaN(date.getTime()) || year < 1 || year > 9999 ? null : date;
}
