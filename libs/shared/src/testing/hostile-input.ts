import { isDeepStrictEqual } from 'node:util';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import request, { type Response } from 'supertest';

/**
 * fast-check generators of what a hostile or careless client sends, shared
 * by every service's property test: JSON texts with U+0000, unpaired surrogates, prototype
 * keys, huge numbers, wrong types and deep nesting; query strings; headers; path segments.
 * Everything is produced as the exact text or bytes sent, so a failure prints what to replay.
 */

/** The seed of every property run: fixed, so a run is reproducible; FC_SEED overrides it. */
export const FUZZ_SEED = Number(process.env.FC_SEED ?? 9_009_009);

/** Runs per property times FC_RUNS_FACTOR (default 1): raise it for a longer hunt. */
const RUNS_FACTOR = Number(process.env.FC_RUNS_FACTOR ?? 1);

/** fc.assert options: the fixed seed and `numRuns`; a failure prints the seed and path. */
export function fuzzOptions(numRuns: number): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(numRuns * RUNS_FACTOR)), verbose: 0 };
}

/** Strings Postgres or our code found hard, and strings that merely look odd. */
const SPECIAL_TEXTS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\udbff',
  '\udc00\ud800',
  '😀',
  '\uFFFD',
  '\u202e',
  '\\u0000',
  '',
  ' ',
  '%00',
  "'; DROP TABLE crm_leads; --",
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '0000-01-01',
  '9999-12-31',
  '10000-01-01',
  '1970-01-01T00:00:00Z',
  '-1',
  '1e400',
  'NaN',
  'true',
  'null',
  'a@b.c',
  'A'.repeat(5000),
];

/** Any string: ordinary, full Unicode, lone surrogates and NUL mixed in, or a special one. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_TEXTS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.string({ maxLength: 10 }),
        fc.constantFrom('\u0000', '\u0000', '\u0000', '\ud800', '\udc00', '\udbff\u0041'),
        fc.string({ maxLength: 10 }),
      )
      .map(([a, bad, b]) => a + bad + b),
  },
);

/** Object keys: prototype names, empty, dotted, NUL, lone surrogates, long ones. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'valueOf',
    '',
    'a.b',
    '$where',
    'k\u0000',
    '\ud800',
    'k'.repeat(300),
  ),
  hostileText,
);

/** Number literals as JSON text: beyond double range, beyond 2^53, tiny, negative zero. */
const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '1e400',
    '-1e400',
    '1e-400',
    '-0',
    '9007199254740993',
    '123456789012345678901234567890',
    '0.000000000000000000001',
    '1e21',
    '99999999999999.99',
    '100000000000000',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
);

/** `levels` arrays or objects nested in each other around `inner`, as JSON text. */
export function nestedJson(levels: number, inner = '1', kind: 'array' | 'object' = 'array') {
  return kind === 'array'
    ? '['.repeat(levels) + inner + ']'.repeat(levels)
    : '{"a":'.repeat(levels) + inner + '}'.repeat(levels);
}

/** Nesting around the MAX_JSON_DEPTH boundary, and far beyond it. */
const deepText: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(fc.integer({ min: 60, max: 70 }), fc.constantFrom(1000, 5000)),
    fc.constantFrom<'array' | 'object'>('array', 'object'),
  )
  .map(([levels, kind]) => nestedJson(levels, '"x"', kind));

/** Any JSON value as text, hostile in its strings, keys, numbers, types and depth. */
export const hostileJsonText: fc.Arbitrary<string> = fc.letrec<{
  value: string;
  array: string;
  object: string;
}>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileText.map((s) => JSON.stringify(s)),
    numberText,
    fc.constantFrom('true', 'false', 'null', '{}', '[]'),
    deepText,
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
})).value;

/** A path into a body: object keys and array indexes. */
export type BodyPath = Array<string | number>;

const PLACEHOLDER = '\u0001hostile\u0001';

/** `body` as JSON text with the value at `path` replaced by `valueText` (added if missing). */
export function bodyWith(body: unknown, path: BodyPath, valueText: string): string {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  if (path.length === 0) return valueText;
  let target = copy;
  for (const segment of path.slice(0, -1)) {
    target = target[segment] as Record<string | number, unknown>;
  }
  target[path[path.length - 1]] = PLACEHOLDER;
  return JSON.stringify(copy).replace(JSON.stringify(PLACEHOLDER), () => valueText);
}

/** `body` as JSON text with `"key": valueText` added to the object at `path`. */
export function bodyWithKey(body: unknown, path: BodyPath, key: string, valueText: string) {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let target = copy;
  for (const segment of path) target = target[segment] as Record<string | number, unknown>;
  // defineProperty, so `__proto__` is an own key like any other, as JSON.parse makes it.
  Object.defineProperty(target, PLACEHOLDER, { value: 0, enumerable: true });
  return JSON.stringify(copy).replace(
    `${JSON.stringify(PLACEHOLDER)}:0`,
    () => `${JSON.stringify(key)}:${valueText}`,
  );
}

/** A request body as sent: its text and content type (undefined: no content-type header). */
export interface HostileBody {
  text: string;
  contentType: string | undefined;
  /** What was done to the valid body, for the failure report. */
  change: string;
}

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/vnd.api+json',
  undefined,
];

/**
 * Bodies for a JSON route: its `valid` body (or an arbitrary of them) with one thing made hostile: a value at one of
 * `paths` (a field, a row's field), a key added to one of `objects` (paths of objects in the
 * body, `[]` for the top level), or the whole body replaced (another JSON value, deep nesting,
 * malformed text); now and then sent with another content type.
 */
export function hostileBody(
  valid: unknown,
  paths: BodyPath[],
  objects: BodyPath[] = [[]],
): fc.Arbitrary<HostileBody> {
  // A valid body may itself be generated (e.g. a fresh email per sign-up).
  if (valid instanceof fc.Arbitrary) {
    return valid.chain((body: unknown) => hostileBody(body, paths, objects));
  }
  // Mostly one field spoiled, and then mostly with a string: the likeliest way in.
  const fieldValue = fc.oneof(
    { weight: 2, arbitrary: hostileText.map((text) => JSON.stringify(text)) },
    { weight: 1, arbitrary: hostileJsonText },
  );
  const spoiledField = fc.tuple(fc.constantFrom(...paths), fieldValue).map(([path, value]) => ({
    text: bodyWith(valid, path, value),
    change: `${path.join('.')}=`,
  }));
  const addedKey = fc
    .tuple(fc.constantFrom(...objects), hostileKey, fieldValue)
    .map(([path, key, value]) => ({
      text: bodyWithKey(valid, path, key, value),
      change: `key in ${path.join('.') || '(top)'}`,
    }));
  const changed: fc.Arbitrary<{ text: string; change: string }> = fc.oneof(
    { weight: 4, arbitrary: spoiledField },
    { weight: 2, arbitrary: addedKey },
    { weight: 1, arbitrary: hostileJsonText.map((text) => ({ text, change: 'whole body' })) },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 40 }).map((text) => ({ text, change: 'any text' })),
    },
  );
  return fc
    .tuple(
      changed,
      fc.oneof(
        { weight: 6, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom(...JSON_TYPES) },
      ),
    )
    .map(([{ text, change }, contentType]) => ({ text, contentType, change }));
}

/** UTF-8 percent-encoding that, unlike encodeURIComponent, takes lone surrogates (as U+FFFD). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Query-string fragments as sent on the wire: broken escapes, encoded NUL and surrogates. */
const RAW_QUERY_PARTS = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%C0%80',
  '%',
  '%zz',
  '%E2%82',
  '%F0%9F%98%80',
  '__proto__',
  'constructor',
  'a[b]',
  '-1',
  '0',
  '1e400',
  '99999999999999999999',
  'asc',
  'DESC',
  'true',
  '',
  '+',
  'x'.repeat(2000),
];

/**
 * A query string (with its `?`, or empty) over the route's `params` and odd names: each
 * value raw from RAW_QUERY_PARTS or any encoded text; names may repeat.
 */
export function hostileQuery(params: string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...params, 'page', 'pageSize', 'sortBy', 'sortOrder') },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERY_PARTS) },
    { weight: 1, arbitrary: hostileText.map(percentEncode) },
  );
  const value = fc.oneof(
    fc.constantFrom(...RAW_QUERY_PARTS),
    hostileText.map(percentEncode),
    fc.nat(200).map(String),
  );
  return fc
    .array(fc.tuple(name, fc.option(value, { nil: undefined })), { maxLength: 5 })
    .map((pairs) =>
      pairs.length === 0
        ? ''
        : `?${pairs.map(([n, v]) => (v === undefined ? n : `${n}=${v}`)).join('&')}`,
    );
}

/** Path segments where an id or slug goes: not uuids, NUL, broken escapes, traversal. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00',
    'a%00',
    '%ED%A0%80',
    '%',
    '%zz',
    '..',
    '%2e%2e',
    '%2F',
    'not-a-uuid',
    '00000000-0000-0000-0000-000000000000',
    'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
    '__proto__',
    'x'.repeat(300),
  ),
  fc.uuid(),
  hostileText.map(percentEncode).filter((s) => s.length > 0),
);

/** A header value Node will send: tab, printable ASCII and Latin-1 (no CR, LF or NUL). */
const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
      fc.constant('\t'),
    ),
    maxLength: 60,
  }),
  fc.constantFrom('', ' ', 'null', '__proto__', '%00', '\u00ff\u00fe', 'x'.repeat(4000)),
  fc.uuid(),
  fc.uuid().map((id) => ` ${id.toUpperCase()} `),
);

/** Headers a client controls, for requests that also carry `cookie` (a session, or none). */
const HEADER_NAMES = [
  'x-tenant-id',
  'x-request-id',
  'x-crm-identity',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'accept',
  'accept-language',
  'origin',
  'referer',
  'user-agent',
  'content-encoding',
  'x-http-method-override',
  'if-none-match',
  'range',
];

/**
 * Headers to set on a request: a few of HEADER_NAMES (and odd names) with any sendable value,
 * plus cookies: the session's own `cookie`, junk ones before or after it, or only junk.
 */
export function hostileHeaders(cookie = ''): fc.Arbitrary<Record<string, string>> {
  const pair = fc
    .tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...HEADER_NAMES) },
        { weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/) },
      ),
      headerText,
    )
    .filter(([name, value]) => {
      try {
        validateHeaderName(name);
        validateHeaderValue(name, value);
        return true;
      } catch {
        return false;
      }
    });
  const junkCookie = fc
    .tuple(
      fc.constantFrom('crm_tenant', 'crm_session', '__proto__', 'x'),
      fc.oneof(fc.uuid(), fc.constantFrom('%00', '%', '', 'null', '"q"')),
    )
    .map(([name, value]) => `${name}=${value}`);
  const cookies = fc
    .oneof(
      fc.constant(cookie),
      junkCookie.map((junk) => [cookie, junk].filter(Boolean).join('; ')),
      junkCookie.map((junk) => [junk, cookie].filter(Boolean).join('; ')),
      junkCookie,
    )
    .filter((value) => {
      try {
        validateHeaderValue('cookie', value);
        return true;
      } catch {
        return false;
      }
    });
  return fc.tuple(fc.array(pair, { maxLength: 3 }), cookies).map(([pairs, cookieValue]) => ({
    ...Object.fromEntries(pairs),
    ...(cookieValue ? { cookie: cookieValue } : {}),
  }));
}

/** What a property reports about a request that broke it. */
export interface FuzzedRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: HostileBody;
}

function describeRequest(req: FuzzedRequest, res: Response): string {
  return JSON.stringify(
    {
      request: {
        method: req.method,
        path: req.path,
        headers: req.headers,
        contentType: req.body?.contentType,
        change: req.body?.change,
        body:
          req.body && req.body.text.length > 500
            ? `${req.body.text.slice(0, 500)}...`
            : req.body?.text,
      },
      response: { status: res.status, body: res.body },
    },
    null,
    1,
  );
}

/**
 * The hostile-input properties for one answered request: never a 5xx; a 4xx in the
 * failure envelope (or a route's own legacy `{ error }` shape); and when it is a 4xx,
 * the rows `before` and `after` (table -> count) are the same.
 */
export function expectHandled(
  req: FuzzedRequest,
  res: Response,
  rows?: { before: Record<string, number>; after: Record<string, number> },
): void {
  if (res.status >= 500) throw new Error(`a 5xx: ${describeRequest(req, res)}`);
  if (res.status >= 400) {
    const body = res.body as { success?: unknown; code?: unknown; error?: unknown } | undefined;
    const enveloped = body?.success === false && typeof body.code === 'string';
    // A HEAD answer has no body to look at.
    if (req.method !== 'HEAD' && !enveloped && typeof body?.error !== 'string') {
      throw new Error(`a ${res.status} without an error body: ${describeRequest(req, res)}`);
    }
    // Compared as maps: the counts come back in no fixed order (one UNION ALL query).
    if (rows && !isDeepStrictEqual(rows.before, rows.after)) {
      throw new Error(
        `a refused request wrote rows ${JSON.stringify(rows)}: ${describeRequest(req, res)}`,
      );
    }
  }
}

/**
 * Sends `req` to `target` (an app, or the URL of a running stack) and holds the answer to
 * expectHandled, with the rows `counts` reads just before and just after it.
 */
export async function sendFuzzedRequest(
  target: Parameters<typeof request>[0],
  req: FuzzedRequest,
  counts: () => Promise<Record<string, number>>,
): Promise<void> {
  const before = await counts();
  let call = request(target)[req.method.toLowerCase() as 'get'](req.path);
  for (const [name, value] of Object.entries(req.headers ?? {})) call = call.set(name, value);
  if (req.body) {
    if (req.body.contentType) call = call.set('content-type', req.body.contentType);
    call = call.send(req.body.text);
  }
  expectHandled(req, await call, { before, after: await counts() });
}
