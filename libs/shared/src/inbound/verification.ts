import { AppError } from '../errors';

/**
 * What a provider's pure `verify()` returns: accepted, or the exact rejection specified for
 * that receiver (e.g. billing: header missing 400; network: bad signature 401). A rejection is
 * answered before any JSON parse or database write.
 */
export type Verification = { ok: true } | { ok: false; rejection: AppError };

export const accepted: Verification = { ok: true };

/**
 * Verifies with a provider's current secret and, while it is being rotated, its previous one
 * (`<SECRET>_PREVIOUS`): a delivery signed with either is accepted. Otherwise the current
 * secret's rejection is answered, the same refusal as without a previous secret.
 */
export function verifyWithEither(
  current: string,
  previous: string | undefined,
  verifyWith: (secret: string) => Verification,
): Verification {
  const verification = verifyWith(current);
  if (verification.ok || !previous || previous === current) return verification;
  return verifyWith(previous).ok ? accepted : verification;
}

/** The documented rejections, each rendered in the failure envelope. */
export const reject = {
  /** A required signature header is absent (billing: 400, specified). */
  missingHeader: (header: string): Verification => ({
    ok: false,
    rejection: new AppError({
      status: 400,
      code: 'INVALID_REQUEST',
      error: 'Missing signature header',
      message: `The ${header} header is required`,
      details: { header },
    }),
  }),
  /** The signature does not match the raw body (or is malformed): 401 unless told otherwise. */
  badSignature: (message = 'The signature does not match the request body'): Verification => ({
    ok: false,
    rejection: new AppError({
      status: 401,
      code: 'UNAUTHORIZED',
      error: 'Invalid signature',
      message,
    }),
  }),
  /** Telephony (Twilio scheme) answers a bad signature with 403. */
  badSignatureForbidden: (
    message = 'The signature does not match the request URL and parameters',
  ): Verification => ({
    ok: false,
    rejection: new AppError({
      status: 403,
      code: 'FORBIDDEN',
      error: 'Invalid signature',
      message,
    }),
  }),
  /** A signed timestamp outside the tolerance, in either direction. */
  staleTimestamp: (toleranceSeconds: number): Verification => ({
    ok: false,
    rejection: new AppError({
      status: 401,
      code: 'UNAUTHORIZED',
      error: 'Invalid signature',
      message: `The signature timestamp is more than ${toleranceSeconds} seconds from the server's clock`,
    }),
  }),
};

/** Specified: billing (and network, 503) refuse when their secret is unset. */
export function secretNotConfigured(receiver: string): AppError {
  return new AppError({
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    error: 'Webhook secret not configured',
    message: `The ${receiver} receiver has no signing secret configured`,
  });
}

/**
 * A stored connection secret that no longer opens (CONNECTION_SECRETS_KEY changed): our fault,
 * so 503 (the provider retries once the key is fixed), never "accept unverified".
 */
export function secretUnavailable(): AppError {
  return new AppError({
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    error: 'Webhook secret unavailable',
    message: 'The webhook secret stored for this connection cannot be read',
  });
}

/** A verified delivery whose body cannot be processed (not JSON, wrong shape): 400. */
export function unprocessable(message: string, details?: unknown): AppError {
  return new AppError({
    status: 400,
    code: 'INVALID_REQUEST',
    error: 'Webhook processing failed',
    message,
    details,
  });
}

/** Whole seconds between a signed unix timestamp and `now`, either direction. */
export function isWithinTolerance(
  timestampSeconds: number,
  now: Date,
  toleranceSeconds: number,
): boolean {
  return (
    Number.isSafeInteger(timestampSeconds) &&
    Math.abs(Math.floor(now.getTime() / 1000) - timestampSeconds) <= toleranceSeconds
  );
}

/** One header's value as a string (first of repeated headers), or undefined. */
export function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/**
 * `t=1700000000,v1=abc,v1=def` (Stripe, network) or `ts=1;h1=abc` (Paddle) -> every value per
 * key, in order. Malformed parts are skipped; the caller checks what it needs is present.
 */
export function parseSignatureHeader(value: string, separator: ',' | ';'): Map<string, string[]> {
  const parts = new Map<string, string[]>();
  for (const part of value.split(separator)) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const key = part.slice(0, at).trim();
    const list = parts.get(key) ?? [];
    list.push(part.slice(at + 1).trim());
    parts.set(key, list);
  }
  return parts;
}
