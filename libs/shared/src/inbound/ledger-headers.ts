import type { IncomingHttpHeaders } from 'node:http';

/**
 * A header whose name says it carries a credential or proves one: the providers' signature
 * headers (`x-hub-signature-256`, `stripe-signature`, `x-storefront-a-hmac-sha256`, ...),
 * `authorization`, cookies, tokens, API keys, and the gateway's own identity and service
 * signature headers. Judged by name, so a provider's new signature header is covered too.
 */
const SECRET_LIKE =
  /signature|secret|token|auth|cookie|hmac|api[-_]?key|password|passwd|session|credential|identity|x-svc/i;

export const REDACTED = '[redacted]';
const MAX_HEADERS = 100;
const MAX_VALUE = 1000;

/** Whether the ledger keeps `name`'s value, or only the fact that it was sent. */
export function isSecretLikeHeader(name: string): boolean {
  return SECRET_LIKE.test(name);
}

/**
 * The headers of a delivery as the ledger stores them: every header by its (lower-case) name,
 * secret-like values replaced by `[redacted]` so the audit view shows that a signature came
 * without ever holding it; repeated headers joined with `, `; bounded (100 headers, 1,000
 * characters a value), since a sender chooses them.
 */
export function ledgerHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, MAX_HEADERS)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    kept[name.toLowerCase()] = isSecretLikeHeader(name) ? REDACTED : text.slice(0, MAX_VALUE);
  }
  return kept;
}
