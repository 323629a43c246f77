import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { guardedLookup, refuseLiteral } from '@crm/shared/outbound';

/** The most response bytes read (and discarded) from a receiver; the rest is cut off. */
export const RESPONSE_BODY_CAP_BYTES = 64 * 1024;

export interface OutboundOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  userAgent: string;
  /** Keep connections to receivers open between requests (default true). */
  keepAlive?: boolean;
}

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  /** JSON text; undefined for GET. */
  body?: string;
}

export type OutboundResult =
  { ok: true; status: number } | { ok: false; status: number } | { ok: false; error: string };

export interface OutboundClient {
  send(request: OutboundRequest): Promise<OutboundResult>;
  close(): void;
}

/** Network error codes -> the words a step message names them with. */
const ERROR_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS temporary failure)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

export function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EBLOCKED') return e.message;
  if (e?.code && ERROR_TEXT[e.code]) return ERROR_TEXT[e.code];
  return e?.message ? e.message.slice(0, 200) : 'request failed';
}

/**
 * The webhook node's HTTP client: node's http(s) with keep-alive agents whose `lookup` is the
 * SSRF guard (unless private networks are allowed), one overall timeout per request, no
 * redirects (node never follows them; a 3xx is a non-2xx), no retries, and the response body
 * read up to RESPONSE_BODY_CAP_BYTES and discarded.
 */
export function createOutboundClient(options: OutboundOptions): OutboundClient {
  const agentOptions = {
    keepAlive: options.keepAlive ?? true,
    maxSockets: 256,
    ...(options.allowPrivateNetworks ? {} : { lookup: guardedLookup }),
  };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);

  function send(req: OutboundRequest): Promise<OutboundResult> {
    const url = new URL(req.url);
    if (!options.allowPrivateNetworks) {
      const refused = refuseLiteral(url.hostname);
      if (refused) return Promise.resolve({ ok: false, error: refused.message });
    }
    const isHttps = url.protocol === 'https:';
    const headers: Record<string, string | number> = {
      ...req.headers,
      'user-agent': options.userAgent,
    };
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(req.body);
    }
    return new Promise((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (result: OutboundResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      try {
        const request = (isHttps ? httpsRequest : httpRequest)(
          url,
          { method: req.method, headers, agent: isHttps ? httpsAgent : httpAgent },
          (res: IncomingMessage) => {
            const status = res.statusCode ?? 0;
            let read = 0;
            res.on('data', (chunk: Buffer) => {
              read += chunk.length;
              // Enough: the body is discarded anyway; stop reading what could be endless.
              if (read > RESPONSE_BODY_CAP_BYTES) res.destroy();
            });
            const done = () =>
              finish(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status });
            res.on('end', done);
            res.on('close', done);
            res.on('error', done);
          },
        );
        timer = setTimeout(() => {
          request.destroy(new Error(`timed out after ${options.timeoutMs} ms`));
        }, options.timeoutMs);
        request.on('error', (err) => finish({ ok: false, error: describeError(err) }));
        request.end(req.body);
      } catch (err) {
        // e.g. a header value node refuses: a failed step, never a thrown run.
        finish({ ok: false, error: describeError(err) });
      }
    });
  }

  return {
    send,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
