/**
 * Reading fields from a verified provider payload whose shape we do not control: every
 * reader returns null for anything missing or of the wrong type, never throws.
 */

/** The value at `path` below `value`, or undefined. */
export function at(value: unknown, ...path: Array<string | number>): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** A non-empty string (or a number, as text), trimmed; null otherwise or when over `max`. */
export function text(value: unknown, max = 255): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' || trimmed.length > max ? null : trimmed;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** An email address, lower-cased (contacts store emails lower-cased). */
export function emailAddress(...candidates: unknown[]): string | null {
  for (const candidate of candidates) {
    const value = text(candidate, 254)?.toLowerCase();
    if (value && EMAIL.test(value)) return value;
  }
  return null;
}

/** A three-letter ISO 4217 code, upper case (Stripe sends lower case). */
export function currencyCode(value: unknown): string | null {
  const code = text(value, 3);
  return code && /^[A-Za-z]{3}$/.test(code) ? code.toUpperCase() : null;
}

/** The first of `values` that is a non-empty string. */
export function firstText(...values: unknown[]): string | null {
  for (const value of values) {
    const found = text(value);
    if (found) return found;
  }
  return null;
}
