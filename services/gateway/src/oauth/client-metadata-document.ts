import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { unstorableText } from '@crm/shared/http';
import { guardedLookup, refuseLiteral } from '@crm/shared/outbound';
import { OAuthError } from './oauth-errors';
import { redirectUrisRefusal } from './redirect-uri';

/*
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client that
 * needs no registration names itself by an https URL, and the document at that URL lists its
 * name and redirect URIs. The URL is the client's, so fetching it is an outbound call to an
 * address a stranger chose: it goes through the SSRF guard (public addresses only, checked on
 * what DNS answers), no redirects are followed, and it is bounded in time and size.
 */

export const DOCUMENT_TIMEOUT_MS = 5000;
export const DOCUMENT_MAX_BYTES = 64 * 1024;
/** A cached document is fetched again when older than this. */
export const DOCUMENT_MAX_AGE_SECONDS = 3600;

/** Whether a client_id names a metadata document: an https URL with a path (not just `/`). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://') || clientId.length > 2048) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  // The URL parser folds `.` and `..` segments away; the draft forbids them, so the raw text is read.
  const rawPath = clientId.slice(clientId.indexOf('/', 'https://'.length));
  const dotSegment = rawPath.split(/[/?]/).some((segment) => segment === '.' || segment === '..');
  return (
    url.pathname !== '/' &&
    !dotSegment &&
    !clientId.includes('#') &&
    url.username === '' &&
    url.password === '' &&
    url.toString() === clientId
  );
}

/** One GET's answer: status and the body as read (never more than the cap). */
export interface FetchedDocument {
  status: number;
  body: Buffer;
}

/** Fetches a metadata document URL; rejects with a message a client may read. */
export type DocumentFetcher = (url: URL) => Promise<FetchedDocument>;

export interface GuardedFetcherOptions {
  timeoutMs?: number;
  maxBytes?: number;
  /**
   * The address check at connect time: guardedLookup (public addresses only) unless a test
   * serves documents from this machine (IP literals are then not refused either).
   */
  lookup?: LookupFunction;
}

/**
 * The production fetcher: node's http(s) with the SSRF guard as the agents' `lookup` (and IP
 * literals refused before connecting), one overall timeout, the body cut off past the cap.
 */
export function guardedDocumentFetcher(options: GuardedFetcherOptions = {}): DocumentFetcher {
  const timeoutMs = options.timeoutMs ?? DOCUMENT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DOCUMENT_MAX_BYTES;
  const lookup = options.lookup ?? (guardedLookup as LookupFunction);
  const agents = {
    'http:': new HttpAgent({ lookup, keepAlive: false }),
    'https:': new HttpsAgent({ lookup, keepAlive: false }),
  };
  return (url) => {
    if (options.lookup === undefined) {
      const refused = refuseLiteral(url.hostname);
      if (refused) return Promise.reject(refused);
    }
    const isHttps = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const request = (isHttps ? httpsRequest : httpRequest)(
        url,
        {
          method: 'GET',
          agent: isHttps ? agents['https:'] : agents['http:'],
          headers: { accept: 'application/json', 'user-agent': 'crm-platform-oauth' },
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > maxBytes) {
              request.destroy(new Error(`the document is larger than ${maxBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      const timer = setTimeout(
        () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      request.on('error', reject);
      request.on('close', () => clearTimeout(timer));
      request.end();
    });
  };
}

/** What a document says about its client, once checked. */
export interface DocumentClient {
  clientName: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
}

function refuse(clientId: string, why: string): OAuthError {
  return new OAuthError('invalid_client', `The client metadata document at ${clientId} ${why}`);
}

/**
 * Fetches and checks the document of `clientId`: 200, JSON, an object whose `client_id` is the
 * URL itself (so a document cannot speak for another URL), redirect URIs by the registration
 * rules, a public client. Any failure is `invalid_client` (never a redirect).
 */
export async function fetchClientDocument(
  fetchDocument: DocumentFetcher,
  clientId: string,
): Promise<DocumentClient> {
  let fetched: FetchedDocument;
  try {
    fetched = await fetchDocument(new URL(clientId));
  } catch (err) {
    const message = err instanceof Error ? err.message : 'the request failed';
    throw refuse(clientId, `could not be fetched: ${message.slice(0, 200)}`);
  }
  if (fetched.status !== 200) throw refuse(clientId, `answered ${fetched.status}, not 200`);
  let document: unknown;
  try {
    document = JSON.parse(fetched.body.toString('utf8'));
  } catch {
    throw refuse(clientId, 'is not JSON');
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    throw refuse(clientId, 'is not a JSON object');
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) throw refuse(clientId, 'names another client_id');
  const redirectRefusal = redirectUrisRefusal(fields.redirect_uris);
  if (redirectRefusal) throw refuse(clientId, `is refused: ${redirectRefusal}`);
  const method = fields.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw refuse(clientId, 'is not a public client (token_endpoint_auth_method "none")');
  const given = typeof fields.client_name === 'string' ? fields.client_name.trim() : '';
  // Unnamed, or a name that cannot be stored or shown: the document's host speaks for it.
  const usable = given.length > 0 && given.length <= 200 && !unstorableText(given);
  const redirectUris = fields.redirect_uris as string[];
  const clientName = usable ? given : new URL(clientId).host;
  return {
    clientName,
    redirectUris,
    metadata: { client_name: clientName, redirect_uris: redirectUris },
  };
}
