/*
 * Making what a provider sent storable in Postgres: the one implementation every receiver
 * uses (parseJsonBody applies it to every JSON body; telephony to its form parameters).
 *
 * Why it exists: a verified sender can legitimately send values Postgres refuses, and a
 * refused INSERT is a 500, which the provider retries forever. Three cases:
 *  - U+0000 (`\u0000` in JSON, `%00` in a form): `text` cannot hold it at all, and `jsonb`
 *    refuses the `\u0000` escape that JSON.stringify writes for it.
 *  - A lone UTF-16 surrogate (`\ud800` without its pair): JSON.parse accepts it, and
 *    JSON.stringify writes it back as a `\ud800` escape, which `jsonb` refuses.
 *  - Very deep nesting (`[[[[...]]]]`): JSON.parse takes far deeper input than the recursive
 *    JSON.stringify (and any recursive walk) can handle before the stack runs out.
 *
 * The first two are replaced by U+FFFD (the Unicode replacement character), in strings and in
 * object keys, so the rest of the delivery is kept and the damage stays visible; the exact
 * bytes remain in the ledger's raw body. Nesting deeper than MAX_JSON_DEPTH is refused (400).
 */

import { MAX_JSON_DEPTH } from '../http/hostile-input-guard';

/**
 * Deepest nesting of arrays/objects a JSON body may have: the platform's one limit (the shared
 * hostile-input guard refuses deeper client bodies too). Real provider payloads nest about
 * 6-10 levels (Stripe invoice lines, Shopify line items, WhatsApp changes), so 64 refuses only
 * bodies no provider sends, while keeping every recursive step afterwards far from the stack
 * limit.
 */
export { MAX_JSON_DEPTH };

/**
 * Whether `value` nests arrays/objects more than `limit` levels deep (`[]` is one level).
 * Iterative on purpose: it is what stands between an arbitrarily deep parsed body and the
 * recursive code after it, so it must not recurse itself.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[item: unknown, level: number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, level] = pending.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (level > limit) return true;
    for (const child of Object.values(item)) pending.push([child, level + 1]);
  }
  return false;
}

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `value` with every U+0000 and every unpaired surrogate replaced by U+FFFD. */
export function storableText(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * A parsed JSON value with storableText applied to every string and every object key. Returns
 * new arrays and objects; the input is not modified. Recursive, so only for values already
 * checked with nestsDeeperThan (parseJsonBody does both).
 */
export function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties, so a `__proto__` key stays a plain data key.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [storableText(key), storableValue(item)]),
    );
  }
  return value;
}

/**
 * A provider timestamp as sent (ISO 8601 string) for a timestamptz column. Anything
 * unreadable, or outside years 1..9999 (which the ISO form Postgres reads cannot carry), is
 * null rather than a failed INSERT; the stored payload keeps the original.
 */
export function storableTimestamp(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const date = new Date(value);
  const year = date.getUTCFullYear();
  return Number.isNaN(date.getTime()) || year < 1 || year > 9999 ? null : date;
}
