import { signSvcRequest } from '@crm/shared/crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IngestResponse } from '../ingest/ingest.schema';

export const INGEST_PATH = '/api/migrate/ingest';
const MAX_ATTEMPTS = 6;
const MAX_BACKOFF_MS = 30_000;

/** A refusal a retry cannot fix: the push stops with this message. */
export class PushStopped extends Error {}

export interface PushTarget {
  url: string;
  secret: string;
  tenant: string;
  source: string;
  entity: string;
}

const FATAL: Record<string, string> = {
  bad_signature:
    "the server refused the signature (bad_signature): check SVC_MIGRATE_SIGNING_SECRET is the server's",
  missing_signing_secret:
    'the server has no signing secret (missing_signing_secret): set SVC_MIGRATE_SIGNING_SECRET on the migrate service',
  timestamp_out_of_range:
    "the server refused the timestamp (timestamp_out_of_range): this machine's clock is more than 5 minutes off",
};

/** Seconds of a Retry-After header (delta seconds or an HTTP date), in ms. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * Sends one chunk, signed anew (fresh nonce and timestamp) on every attempt. Retries what is
 * transient, with backoff doubling from 500 ms up to 30 s (or the server's Retry-After): a
 * network error, a 5xx, a 429, `nonce_store_error` (and `replay`, which only a lost answer to
 * an earlier attempt can cause). Stops on a refusal no retry can fix.
 */
export async function pushChunk(
  target: PushTarget,
  records: unknown[],
  onRetry: (attempt: number, why: string, waitMs: number) => void = () => undefined,
): Promise<IngestResponse> {
  const body = JSON.stringify({
    tenant: target.tenant,
    source_system: target.source,
    entity: target.entity,
    records,
  });
  for (let attempt = 1; ; attempt++) {
    let why: string;
    let waitMs: number | undefined;
    try {
      const headers = signSvcRequest(target.secret, { method: 'POST', path: INGEST_PATH, body });
      const res = await fetch(new URL(INGEST_PATH, target.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (res.ok) return answer as unknown as IngestResponse;
      const reason = typeof answer.error === 'string' ? answer.error : `HTTP ${res.status}`;
      if (FATAL[reason]) throw new PushStopped(FATAL[reason]);
      const transient =
        res.status >= 500 ||
        res.status === 429 ||
        reason === 'nonce_store_error' ||
        reason === 'replay';
      if (!transient) {
        const detail = typeof answer.message === 'string' ? `: ${answer.message}` : '';
        throw new PushStopped(`the server refused the records (${res.status} ${reason}${detail})`);
      }
      why = reason;
      waitMs = retryAfterMs(res.headers.get('retry-after'));
    } catch (err) {
      if (err instanceof PushStopped) throw err;
      why = err instanceof Error ? err.message : String(err);
    }
    if (attempt >= MAX_ATTEMPTS)
      throw new PushStopped(`gave up after ${attempt} attempts (${why})`);
    const backoff = Math.min(MAX_BACKOFF_MS, waitMs ?? 500 * 2 ** (attempt - 1));
    onRetry(attempt, why, backoff);
    await sleep(backoff);
  }
}
