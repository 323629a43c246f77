import { parse, stringify } from 'node:querystring';
import { hmac } from '@crm/shared/crypto';
import type { FormParams } from './form-params';

/**
 * Twilio's request signature, as `twilio`'s getExpectedTwilioSignature computes it
 * (lib/webhooks/webhooks.js): the full URL, then for each parameter key in sorted order the
 * key followed by its value; a repeated key contributes key+value once per DISTINCT value, the
 * values sorted. HMAC-SHA1 keyed by the auth token, base64.
 */
export function expectedSignature(authToken: string, url: string, params: FormParams): string {
  let data = url;
  for (const key of [...params.keys()].sort()) {
    for (const value of [...new Set(params.get(key))].sort()) data += key + value;
  }
  return hmac('sha1', authToken, Buffer.from(data, 'utf8'), 'base64');
}

/**
 * The URL forms twilio's validateRequest accepts a signature over: the URL as received
 * without and with its port (Twilio may sign either), then the same for the URL as `new URL()`
 * normalises it, and that with the query re-encoded the legacy `querystring` way.
 */
export function signedUrlCandidates(url: string): string[] {
  const candidates = [removePort(url), addPort(url)];
  let normalized: string | undefined;
  try {
    normalized = new URL(url).toString();
  } catch {
    normalized = undefined;
  }
  if (normalized !== undefined) {
    const forms = [removePort(normalized), addPort(normalized)];
    candidates.push(...forms, ...forms.map(withLegacyQuerystring));
  }
  return [...new Set(candidates)];
}

interface UrlParts {
  scheme: string;
  userInfo: string;
  host: string;
  port: string;
  rest: string;
}

/** Splits without normalising, so path and query keep the exact characters Twilio signed. */
function splitUrl(url: string): UrlParts | undefined {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (!match) return undefined;
  const [prefix, scheme, authority] = match;
  const userInfoEnd = authority.lastIndexOf('@');
  const hostAndPort = authority.slice(userInfoEnd + 1);
  // In an IPv6 literal, a colon starts the port only after the closing bracket.
  const portStart = hostAndPort.indexOf(':', hostAndPort.lastIndexOf(']') + 1);
  return {
    scheme,
    userInfo: authority.slice(0, userInfoEnd + 1),
    host: portStart === -1 ? hostAndPort : hostAndPort.slice(0, portStart),
    port: portStart === -1 ? '' : hostAndPort.slice(portStart),
    rest: url.slice(prefix.length),
  };
}

function addPort(url: string): string {
  const parts = splitUrl(url);
  if (!parts || parts.port) return url;
  const port = parts.scheme.toLowerCase() === 'https://' ? ':443' : ':80';
  return parts.scheme + parts.userInfo + parts.host + port + parts.rest;
}

function removePort(url: string): string {
  const parts = splitUrl(url);
  return parts ? parts.scheme + parts.userInfo + parts.host + parts.rest : url;
}

function withLegacyQuerystring(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1 || queryStart === url.length - 1) return url;
  return `${url.slice(0, queryStart)}?${stringify(parse(url.slice(queryStart + 1)))}`;
}
