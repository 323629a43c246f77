import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Logger } from '../../libs/shared/src/logger';

/** Where `npm start`'s local webhook receiver listens unless ECHO_RECEIVER_PORT says otherwise. */
export const ECHO_RECEIVER_DEFAULT_PORT = 4010;

/** Bodies past this are cut off: the receiver only needs to see what a workflow sends. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Standard Webhooks' tolerance for the sender's clock. */
const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export type SignatureCheck = 'verified' | 'invalid' | 'not checked (secret unknown)';

export interface EchoReceiver {
  /** The base URL a workflow's webhook node posts to (any path is answered). */
  url: string;
  /** A workflow signing secret (`whsec_...`) whose signatures this receiver checks. */
  trust(secret: string): void;
  close(): Promise<void>;
}

/**
 * The Standard Webhooks check (docs/automations.md, Signing): `v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` under the secret's base64 key, any of the space-separated
 * signatures, and a timestamp within five minutes.
 */
export function checkSignature(
  secrets: readonly string[],
  headers: IncomingMessage['headers'],
  body: Buffer,
  nowSeconds = Math.floor(Date.now() / 1000),
): SignatureCheck {
  if (secrets.length === 0) return 'not checked (secret unknown)';
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  const signatures = String(headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  if (!id || !/^\d+$/.test(timestamp)) return 'invalid';
  if (Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return 'invalid';
  for (const secret of secrets) {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
    if (signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected))) {
      return 'verified';
    }
  }
  return 'invalid';
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** What a workflow's body says it is about, for the log line (docs/automations.md, variables). */
function summary(body: Buffer): Record<string, unknown> {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as {
      module?: string;
      record_id?: string;
      variables?: { event?: { type?: string } };
    };
    return {
      event: parsed.variables?.event?.type,
      module: parsed.module,
      record_id: parsed.record_id,
    };
  } catch {
    return { bytes: body.length };
  }
}

/**
 * A local endpoint for workflows to send their webhooks to under `npm start`: it answers every
 * request 200, checks the signature when it knows the workflow's secret, and logs one line per
 * request, so a newcomer sees the run history fill with real successful runs without an
 * account anywhere. Listens on loopback only.
 */
export async function startEchoReceiver(options: {
  port: number;
  log: Logger;
}): Promise<EchoReceiver> {
  const secrets: string[] = [];
  const server: Server = createServer((req, res) => {
    readBody(req).then(
      (body) => {
        const signature = checkSignature(secrets, req.headers, body);
        options.log.info(
          {
            method: req.method,
            path: req.url,
            webhook_id: req.headers['webhook-id'],
            // Not `signature`: the logger redacts fields of that name.
            signatureCheck: signature,
            ...summary(body),
          },
          'echo receiver got a webhook',
        );
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ received: true, signature }));
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${options.port}`,
    trust: (secret) => void secrets.push(secret),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
