import { takeEarly } from './early-requests';

/**
 * The one way the console calls the API: same-origin fetch, so the browser sends the session
 * cookie (HttpOnly; the console never sees or stores a token) and the gateway's cross-site
 * guard lets the writes through. A failure is an ApiError carrying the error envelope.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait before retrying (the Retry-After header of a 429), when given. */
    readonly retryAfterSeconds?: number,
    /**
     * The envelope's `message` when it says more than its `error` (a 400's "Validation failed"
     * comes with `Invalid export request: columns.1: unknown column ...`; a 409's with `A lead
     * with email … already exists`): what a form shows next to a field.
     */
    readonly detail?: string,
    /** The envelope's validation issues, when given. */
    readonly issues: ReadonlyArray<{ path: string; message: string }> = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export async function api<T>(
  path: string,
  options: {
    method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
    body?: unknown;
    signal?: AbortSignal;
  } = {},
): Promise<T> {
  const early = (options.method ?? 'GET') === 'GET' ? takeEarly(path) : undefined;
  const response = await (early ??
    fetch(path, {
      method: options.method ?? 'GET',
      credentials: 'same-origin',
      headers: options.body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    }));
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw errorOf(response, body);
  return body as T;
}

/**
 * A file the API answers to a POST (an export): the same same-origin, cookie-carrying request,
 * read as it streams in so the screen can say how much has arrived. A failure before the file
 * starts is the usual JSON envelope, thrown as an ApiError; `name` is the Content-Disposition's.
 */
export async function downloadFile(
  path: string,
  body: unknown,
  options: { signal?: AbortSignal; onBytes?: (received: number) => void } = {},
): Promise<{ blob: Blob; name: string | null }> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: options.signal,
  });
  if (!response.ok) {
    throw errorOf(response, await response.json().catch(() => undefined));
  }
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let received = 0;
  const reader = (response.body as ReadableStream<Uint8Array<ArrayBuffer>>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.byteLength;
    options.onBytes?.(received);
  }
  const disposition = response.headers.get('Content-Disposition') ?? '';
  return {
    blob: new Blob(parts, { type: response.headers.get('Content-Type') ?? undefined }),
    name: /filename="([^"]+)"/.exec(disposition)?.[1] ?? null,
  };
}

/**
 * Hands a file made or fetched in the page to the browser as a download. The object URL lives
 * a minute: revoked at once, Chromium can lose the download it has not started writing yet.
 */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function errorOf(response: Response, body: unknown): ApiError {
  const envelope = (body ?? {}) as {
    error?: string;
    message?: string;
    code?: string;
    details?: { issues?: Array<{ path: string; message: string }> } | null;
  };
  const retryAfter = Number(response.headers.get('Retry-After'));
  const message = envelope.error ?? envelope.message ?? `The server answered ${response.status}`;
  return new ApiError(
    response.status,
    envelope.code ?? 'HTTP_ERROR',
    message,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    envelope.message && envelope.message !== message ? envelope.message : undefined,
    Array.isArray(envelope.details?.issues) ? envelope.details.issues : [],
  );
}

/** `{ success, data, message }`: the gateway's own routes answer in this envelope. */
export interface Envelope<T> {
  success: true;
  data: T;
  message: string;
}
