/**
 * Requests started before the app's code has run (first-requests.ts, a script of a few hundred
 * bytes that index.html runs first), handed over to the first `api()` call of the same path.
 * On a first visit the app's own scripts take longest (hundreds of milliseconds to parse and
 * run on a slow machine), and the session and the first page of leads need none of it.
 */
const started = new Map<string, { at: number; response: Promise<Response> }>();
/** Whether the app has made a request: from then on it asks for itself. */
let appAsked = false;

/** An early answer older than this is not handed over: the app asks again. */
const KEPT_MS = 10_000;

/** Starts GET `path` now (same-origin, with the session cookie: what `api()` would send). */
export function startEarly(path: string): void {
  // Both scripts load side by side: on a busy machine the app may have run first.
  if (appAsked) return;
  const response = fetch(path, { credentials: 'same-origin' });
  // Nobody may take it (a signed-out visit ends on the sign-in screen): no unhandled rejection.
  response.catch(() => undefined);
  started.set(path, { at: performance.now(), response });
}

/** The early answer to GET `path`, once and only if it is recent; else undefined. */
export function takeEarly(path: string): Promise<Response> | undefined {
  appAsked = true;
  const early = started.get(path);
  if (!early) return undefined;
  started.delete(path);
  return performance.now() - early.at < KEPT_MS ? early.response : undefined;
}
