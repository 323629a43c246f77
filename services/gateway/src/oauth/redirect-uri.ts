/*
 * Which redirect URIs a client may register (RFC 7591) or list in its metadata document: https
 * anywhere, plain http only back to this machine (native apps' loopback redirect, RFC 8252 §7.3),
 * never a fragment (RFC 6749 §3.1.2), no credentials in the URL.
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 2000;

/** Why `value` is refused as a redirect URI, or undefined when it is acceptable. */
export function redirectUriRefusal(value: string): string | undefined {
  if (value.length > MAX_REDIRECT_URI_LENGTH)
    return `a redirect URI is at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  // Compared byte for byte later, so one spelling only: no spaces, controls or raw Unicode.
  if (/[^\x21-\x7e]/.test(value))
    return 'a redirect URI is printable ASCII (percent-encode anything else)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not an absolute URL`;
  }
  // `#` alone parses to an empty hash too.
  if (url.hash !== '' || value.includes('#')) return 'a redirect URI has no fragment';
  if (url.username !== '' || url.password !== '') return 'a redirect URI has no user or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'a redirect URI is https, or http on a loopback host (127.0.0.1, [::1], localhost)';
}

/** Why a list of redirect URIs is refused (1 to 10, each acceptable), or undefined. */
export function redirectUrisRefusal(values: unknown): string | undefined {
  if (!Array.isArray(values) || values.length === 0) return 'redirect_uris lists 1 or more URIs';
  if (values.length > MAX_REDIRECT_URIS)
    return `redirect_uris lists at most ${MAX_REDIRECT_URIS} URIs`;
  for (const value of values) {
    if (typeof value !== 'string') return 'every redirect URI is a string';
    const refusal = redirectUriRefusal(value);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * A loopback http redirect URI cut at its port, on the string as written (no normalisation, so
 * every other byte is compared as is): scheme and host, the port's digits (may be absent), the
 * rest (path and query). Undefined for anything else, https included.
 */
const LOOPBACK_REDIRECT = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::(\d+))?([/?].*)?$/;

function loopbackParts(uri: string): { origin: string; port?: string; rest: string } | undefined {
  const match = LOOPBACK_REDIRECT.exec(uri);
  return match ? { origin: match[1], port: match[2], rest: match[3] ?? '' } : undefined;
}

/** A port an authorize request may name: 1 to 65535, written without leading zeros. */
const isPort = (port: string) => /^[1-9]\d{0,4}$/.test(port) && Number(port) <= 65535;

/**
 * Whether an authorize request's `redirect_uri` is one the client registered: byte for byte,
 * except that for a loopback http registration (127.0.0.1, [::1], localhost) any port is
 * accepted, with scheme, host, path and query still exactly as registered (OAuth 2.1 §8.4.2,
 * RFC 8252 §7.3: a native app listens on whatever port is free when it starts). https URIs, and
 * any other difference, must match exactly. The token request then repeats the URI the
 * authorize request used, port included (stored with the code).
 */
export function redirectUriRegistered(registered: readonly string[], asked: string): boolean {
  if (registered.includes(asked)) return true;
  const wanted = loopbackParts(asked);
  if (!wanted || (wanted.port !== undefined && !isPort(wanted.port))) return false;
  return registered.some((uri) => {
    const listed = loopbackParts(uri);
    return listed?.origin === wanted.origin && listed.rest === wanted.rest;
  });
}

/** The host (and port) a consent screen and the tenant's connection list show for a client. */
export function redirectHost(redirectUri: string): string {
  return new URL(redirectUri).host;
}

/** `redirectUri` with the given parameters added (its own query kept). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>) {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
