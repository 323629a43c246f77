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
     * The envelope's sentence for people (`A lead with email … already exists`, `Invalid
     * email`) and its validation issues, when given: what a form shows next to a field.
     */
    readonly detail?: string,
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
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    credentials: 'same-origin',
    headers: options.body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw errorOf(response, body);
  return body as T;
}

function errorOf(response: Response, body: unknown): ApiError {
  const envelope = (body ?? {}) as {
    error?: string;
    message?: string;
    code?: string;
    details?: { issues?: Array<{ path: string; message: string }> } | null;
  };
  const retryAfter = Number(response.headers.get('Retry-After'));
  return new ApiError(
    response.status,
    envelope.code ?? 'HTTP_ERROR',
    envelope.error ?? envelope.message ?? `The server answered ${response.status}`,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    envelope.message,
    Array.isArray(envelope.details?.issues) ? envelope.details.issues : [],
  );
}

/** `{ success, data, message }`: the gateway's own routes answer in this envelope. */
export interface Envelope<T> {
  success: true;
  data: T;
  message: string;
}
