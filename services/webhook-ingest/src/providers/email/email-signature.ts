import { AppError } from '@crm/shared/http';
// svix's webhook module alone: the package's index loads its whole API client (250 modules).
import { Webhook, WebhookVerificationError } from 'svix/dist/webhook';
import {
  accepted,
  headerValue,
  isWithinTolerance,
  reject,
  type Verification,
} from '@crm/shared/inbound';

/** The Standard Webhooks triple, under our own names (specified: `email-webhook-*`). */
export const EMAIL_HEADERS = {
  id: 'email-webhook-id',
  timestamp: 'email-webhook-timestamp',
  signature: 'email-webhook-signature',
} as const;
/** Standard Webhooks' tolerance (svix enforces the same 5 minutes), either direction. */
export const EMAIL_TOLERANCE_SECONDS = 300;

const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * The email provider signs with the Standard Webhooks /
 * Svix scheme, checked by the `svix` library over the raw body (as a UTF-8 string, which is
 * what the scheme signs). Missing headers, a timestamp more than 5 minutes from `now`, or no
 * matching `v1,` signature: 401.
 *
 * Clock: svix checks the timestamp against the process clock itself. So that this function
 * answers for the `now` it is given (and a unit test can pin it), the tolerance is also
 * checked here against `now`; the route passes `new Date()`, where both checks agree. With
 * any other `now`, a delivery is accepted only if it is fresh by both clocks.
 */
export function verifyEmailSignature(
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  now: Date,
): Verification {
  const id = headerValue(headers, EMAIL_HEADERS.id);
  const timestamp = headerValue(headers, EMAIL_HEADERS.timestamp);
  const signature = headerValue(headers, EMAIL_HEADERS.signature);
  if (!id || !timestamp || !signature) {
    const missing = Object.values(EMAIL_HEADERS).filter((name) => !headerValue(headers, name));
    return reject.badSignature(`Missing signature header(s): ${missing.join(', ')}`);
  }
  if (!UNIX_SECONDS.test(timestamp)) {
    return reject.badSignature(`The ${EMAIL_HEADERS.timestamp} header must be unix seconds`);
  }
  if (!isWithinTolerance(Number(timestamp), now, EMAIL_TOLERANCE_SECONDS)) {
    return reject.staleTimestamp(EMAIL_TOLERANCE_SECONDS);
  }

  const webhook = webhookFor(secret);
  if (!webhook) return { ok: false, rejection: unusableSecret() };
  try {
    webhook.verify(rawBody.toString('utf8'), {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    });
  } catch (error) {
    // svix JSON-parses the payload only after a signature matched: a verified body that is not
    // JSON is the sender's processing failure (the route answers 400), not a forgery.
    if (error instanceof SyntaxError) return accepted;
    if (error instanceof WebhookVerificationError && error.message.includes('timestamp too')) {
      return reject.staleTimestamp(EMAIL_TOLERANCE_SECONDS);
    }
    return reject.badSignature();
  }
  return accepted;
}

/** svix refuses an empty or non-base64 secret when constructed. */
function webhookFor(secret: string): Webhook | undefined {
  try {
    return new Webhook(secret);
  } catch {
    return undefined;
  }
}

/** A configured secret svix cannot use is a configuration fault: same 503 as an unset one. */
function unusableSecret(): AppError {
  return new AppError({
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    error: 'Webhook secret not configured',
    message: 'The email receiver signing secret is not a valid whsec_ (base64) secret',
  });
}
