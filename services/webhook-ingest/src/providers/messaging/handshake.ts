import { safeEqual } from '@crm/shared/crypto';

export type HandshakeAnswer =
  { ok: true; challenge: string } | { ok: false; reason: 'forbidden' | 'missing_challenge' };

/**
 * The subscription check Meta makes when the webhook URL is registered. Only `hub.mode=subscribe`
 * with `hub.verify_token` equal to the configured token earns the echo (else 403, specified); with
 * no token configured nobody does. Express 5's 'simple' query parser keeps the dotted keys literal
 * (`req.query['hub.mode']`); a repeated key arrives as an array and is refused like a wrong value.
 */
export function answerHandshake(
  query: Record<string, unknown>,
  verifyToken: string | undefined,
): HandshakeAnswer {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (!verifyToken || mode !== 'subscribe' || typeof token !== 'string') {
    return { ok: false, reason: 'forbidden' };
  }
  if (!safeEqual(token, verifyToken)) return { ok: false, reason: 'forbidden' };
  if (typeof challenge !== 'string' || challenge === '') {
    return { ok: false, reason: 'missing_challenge' };
  }
  return { ok: true, challenge };
}
