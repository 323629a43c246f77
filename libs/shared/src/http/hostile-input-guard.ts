/*
 * The one check every client-sent value passes before a route sees it (JSON and form bodies
 * through jsonBody()/formBody(), query strings through createServiceApp()).
 *
 * Why: a client can send values that are valid JSON (or URL encoding) but that Postgres or
 * our own recursive code cannot take, and each used to be a 500:
 *  - U+0000 (`\u0000` in JSON, `%00` in a URL): `text` cannot hold it, and `jsonb` refuses
 *    the `\u0000` escape JSON.stringify writes for it.
 *  - An unpaired UTF-16 surrogate (`\ud800` alone): JSON.parse accepts it; `jsonb` refuses
 *    the escape JSON.stringify writes back, and a `text` column would silently get U+FFFD.
 *  - Very deep nesting (`[[[[...]]]]`): JSON.parse takes far deeper input than zod, our
 *    recursive code or JSON.stringify can walk before the stack runs out.
 * None of them is anything a client means to store, so the request is refused with a 400
 * naming the first offending field; nothing is silently rewritten.
 *
 * The webhook receivers take what verified providers send and keep it (webhook-ingest's
 * storable.ts replaces the characters with U+FFFD), with the same depth limit.
 */
import type { RequestHandler } from 'express';
import { errors, type AppError } from '../errors';

/**
 * Deepest nesting of arrays/objects a request body may have (`[]` is one level, `{"a":[]}`
 * two). Real payloads nest a handful of levels; 64 refuses only bodies nobody sends while
 * keeping every recursive step after the check far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

const NUL = '\u0000';
// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Why a string cannot be taken, or undefined when it can. */
export function unstorableText(value: string): string | undefined {
  if (value.includes(NUL)) return 'must not contain U+0000 (NUL)';
  if (LONE_SURROGATE.test(value)) return 'must not contain an unpaired UTF-16 surrogate';
  return undefined;
}

/** One refusal, in the shape validate() gives a zod issue (`path` as an array here). */
export interface HostileInputIssue {
  path: Array<string | number>;
  message: string;
  /** zod's issue codes: `invalid_format` (a string), `invalid_key` (a key), `too_big` (depth). */
  code: 'invalid_format' | 'invalid_key' | 'too_big';
}

/** A container being walked: its keys (or length), the next index, and how it was reached. */
interface Frame {
  value: object;
  keys: string[] | undefined;
  length: number;
  next: number;
  level: number;
  parent: Frame | undefined;
  key: string | number | undefined;
}

function frame(value: object, level: number, parent?: Frame, key?: string | number): Frame {
  const keys = Array.isArray(value) ? undefined : Object.keys(value);
  const length = keys ? keys.length : (value as unknown[]).length;
  return { value, keys, length, next: 0, level, parent, key };
}

function pathOf(parent: Frame | undefined, last: string | number): Array<string | number> {
  const path: Array<string | number> = [last];
  for (let f = parent; f?.key !== undefined; f = f.parent) path.unshift(f.key);
  return path;
}

/**
 * The first problem in a parsed JSON (or query/form) value, in document order, or undefined:
 * a string or key with U+0000 or an unpaired surrogate, or nesting deeper than `maxDepth`.
 * Iterative on purpose: it is what stands between an arbitrarily deep value and the recursive
 * code after it, so it must not recurse itself.
 */
export function findHostileInput(
  value: unknown,
  maxDepth = MAX_JSON_DEPTH,
): HostileInputIssue | undefined {
  if (typeof value === 'string') {
    const message = unstorableText(value);
    return message ? { path: [], message, code: 'invalid_format' } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (maxDepth < 1) return { path: [], message: tooDeep(maxDepth), code: 'too_big' };
  const stack: Frame[] = [frame(value, 1)];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next >= top.length) {
      stack.pop();
      continue;
    }
    const index = top.next;
    top.next += 1;
    let name: string | number = index;
    if (top.keys) {
      name = top.keys[index];
      const keyProblem = unstorableText(name);
      if (keyProblem) {
        return { path: pathOf(top, name), message: `key ${keyProblem}`, code: 'invalid_key' };
      }
    }
    const child = (top.value as Record<string | number, unknown>)[name];
    if (typeof child === 'string') {
      const message = unstorableText(child);
      if (message) return { path: pathOf(top, name), message, code: 'invalid_format' };
    } else if (child !== null && typeof child === 'object') {
      if (top.level + 1 > maxDepth) {
        return { path: pathOf(top, name), message: tooDeep(maxDepth), code: 'too_big' };
      }
      stack.push(frame(child, top.level + 1, top, name));
    }
  }
  return undefined;
}

const tooDeep = (maxDepth: number) => `must not nest deeper than ${maxDepth} levels`;

/**
 * A path as validate() renders zod's (`leads.3.custom_fields.note`), with U+0000 and unpaired
 * surrogates shown as `\u0000`-style escapes, so the answer names the field readably and can
 * itself be logged or stored anywhere.
 */
export function renderPath(path: Array<string | number>): string {
  return path
    .map((segment) =>
      String(segment)
        .replaceAll(NUL, '\\u0000')
        .replace(LONE_SURROGATES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    )
    .join('.');
}

/**
 * The 400 for a hostile value: VALIDATION_ERROR with `details.issues` as validate() gives
 * them (`[{ path, message, code }]`); `what` names the part of the request (`request body`,
 * `query string`).
 */
export function hostileInputError(issue: HostileInputIssue, what: string): AppError {
  const path = renderPath(issue.path);
  const where = path ? `${path}: ` : '';
  return errors.validation(`Invalid ${what}: ${where}${issue.message}`, {
    issues: [{ path, message: issue.message, code: issue.code }],
  });
}

/** Throws hostileInputError() for the first problem in `value`, if any. */
export function assertNoHostileInput(value: unknown, what: string, maxDepth = MAX_JSON_DEPTH) {
  const issue = findHostileInput(value, maxDepth);
  if (issue) throw hostileInputError(issue, what);
}

/**
 * Every route's query string, checked as a body is: a `%00` in a parameter's name or value
 * -> 400 `VALIDATION_ERROR` naming the parameter, so no route passes one on to Postgres.
 * (Percent-encoded surrogates do not survive URL decoding, which yields U+FFFD for them.)
 */
export function refuseHostileQuery(): RequestHandler {
  return (req, _res, next) => {
    if (!req.url.includes('?')) return next();
    const issue = findHostileInput(req.query, MAX_JSON_DEPTH);
    next(issue ? hostileInputError(issue, 'query string') : undefined);
  };
}
