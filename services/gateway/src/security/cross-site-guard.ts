import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '@crm/shared/errors';
import type { RequestHandler } from 'express';
import { readCookie, SESSION_COOKIE } from '../auth/cookies';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The content types a plain HTML `<form>` can send: the only ones a form-borne forgery can carry. */
const FORM_CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
];

function isFormContentType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return FORM_CONTENT_TYPES.includes(type);
}

/**
 * Whether a browser sent this request from a page of another origin that is not trusted.
 *
 * - `Sec-Fetch-Site` (every current browser sends it): `same-origin` and `none` (typed by the
 *   user) pass; `same-site` and `cross-site` pass only when `Origin` is trusted. `same-site`
 *   matters most: a sibling subdomain, or another port of the same host, is "same site", so the
 *   `SameSite=Lax` session cookie goes along with its form posts.
 * - No `Sec-Fetch-Site` but an `Origin` (older browsers send it on every POST): it must be
 *   trusted; `Origin: null` (sandboxed frames, data: URLs) never is.
 * - Neither header: not a browser of the last decade, unless the body is one only an HTML form
 *   would send, which is refused. API clients (curl, SDKs) send neither and pass.
 */
export function isUntrustedCrossSite(
  headers: IncomingHttpHeaders,
  trusted: (origin: string) => boolean,
): boolean {
  const site = headers['sec-fetch-site'];
  const origin = headers.origin;
  if (site !== undefined) {
    if (site === 'same-origin' || site === 'none') return false;
    return origin === undefined || !trusted(origin);
  }
  if (origin !== undefined) return !trusted(origin);
  return isFormContentType(headers['content-type']);
}

export interface CrossSiteGuardOptions {
  /** Origins besides the gateway's own whose pages may write with the cookie (CORS_ORIGINS). */
  allowedOrigins: string[];
  /** PUBLIC_BASE_URL: the origin users reach the gateway at. */
  publicBaseUrl: string;
  /** Routes that never read the session cookie (public forms, signed and keyed machine routes). */
  ignoresSessionCookie: (path: string) => boolean;
}

/**
 * Refuses a state-changing request that carries the session cookie but was sent by a page of an
 * untrusted origin (403 `Cross-site request refused`), before any route or service sees it: the
 * forged form post of an invitation accept, a secret rotation or a sign-out never runs. Requests
 * without the cookie (MCP keys, signed migrations, providers' webhooks, public forms) are not
 * the cookie's to protect and pass untouched.
 */
export function refuseCrossSiteWrites(options: CrossSiteGuardOptions): RequestHandler {
  const configured = new Set([new URL(options.publicBaseUrl).origin, ...options.allowedOrigins]);
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method) || options.ignoresSessionCookie(req.path)) return next();
    if (readCookie(req, SESSION_COOKIE) === undefined) return next();
    // The origin this request addressed, as the browser saw it (behind a trusted proxy, its
    // forwarded scheme and host).
    const own = `${req.protocol}://${req.get('host')}`;
    const trusted = (origin: string) => origin === own || configured.has(origin);
    if (!isUntrustedCrossSite(req.headers, trusted)) return next();
    next(
      new AppError({
        status: 403,
        code: 'FORBIDDEN',
        error: 'Cross-site request refused',
        message:
          'A request that changes something with the session cookie must come from the platform’s own pages or an origin listed in CORS_ORIGINS.',
        details: {
          origin: req.headers.origin ?? null,
          secFetchSite: req.headers['sec-fetch-site'] ?? null,
        },
      }),
    );
  };
}
