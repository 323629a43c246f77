/** Deeper than any cloud-API payload (about 8 levels); deeper ones are refused with 400. */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a parsed JSON value nests arrays/objects deeper than `limit`. Iterative, because
 * JSON.parse accepts nesting far deeper than the recursive JSON.stringify (used to store
 * payloads) can handle: `[[[[...]]]]` in a message would otherwise end in a 500.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

// UTF-16 surrogates that are not part of a pair.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Postgres text and jsonb cannot hold U+0000 or a lone surrogate, both of which JSON can carry
 * (`\u0000`, `\ud800`): storing one would fail the delivery with a 500 and the provider would
 * retry it forever. Each becomes U+FFFD in the payload's strings and keys, so the rest of the
 * delivery is kept (the ledger keeps the raw bytes). Recursive: call it on depth-checked values.
 */
export function storable(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
  }
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [storable(key) as string, storable(item)]),
    );
  }
  return value;
}
