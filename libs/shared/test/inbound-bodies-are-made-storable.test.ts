import { AppError, errors } from '@crm/shared/http';
import {
  parseJsonBody,
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  storableText,
  storableTimestamp,
  storableValue,
} from '@crm/shared/inbound';

/**
 * The one rule every receiver stores provider values by (pure: no HTTP, no database):
 * U+0000 and lone surrogates become U+FFFD in strings and keys, nesting is bounded, and
 * parseJsonBody applies both to every JSON body.
 */
function refusal(read: () => unknown) {
  try {
    read();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, code: error.code, error: error.error, message: error.message };
  }
  throw new Error('expected a 400');
}

/** `levels` arrays nested in each other, as JSON text. */
const nestedArrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** `levels` objects nested in each other (`{"a":{"a":{}}}`), as JSON text. */
const nestedObjects = (levels: number) =>
  '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

const TOO_DEEP = {
  status: 400,
  code: 'INVALID_REQUEST',
  error: 'Webhook processing failed',
  message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels`,
};

describe('storableText', () => {
  it.each([
    ['NUL', 'a\u0000b', 'a\uFFFDb'],
    ['several NULs', '\u0000\u0000', '\uFFFD\uFFFD'],
    ['a high surrogate at the end', 'x\uD800', 'x\uFFFD'],
    ['a high surrogate before a plain character', '\uDBFFx', '\uFFFDx'],
    ['a low surrogate at the start', '\uDC00x', '\uFFFDx'],
    ['a pair in the wrong order', '\uDC00\uD800', '\uFFFD\uFFFD'],
    ['two high surrogates then a low one', '\uD800\uD83D\uDE00', '\uFFFD😀'],
  ])('replaces %s with U+FFFD', (_case, input, expected) => {
    expect(storableText(input)).toBe(expected);
  });

  it('keeps everything else as it is, proper surrogate pairs included', () => {
    const text = 'Élodie 😀 \uFFFD \t\n \u0001 \\u0000';
    expect(storableText(text)).toBe(text);
  });
});

describe('storableValue', () => {
  it('cleans strings and keys at every level, leaves other values alone', () => {
    const value = {
      'k\u0000': ['a\u0000', { '\uDC00': '\uD800' }, 1, true, null],
      n: 2.5,
      ok: '😀',
    };
    expect(storableValue(value)).toEqual({
      'k\uFFFD': ['a\uFFFD', { '\uFFFD': '\uFFFD' }, 1, true, null],
      n: 2.5,
      ok: '😀',
    });
  });

  it('returns new values, leaving its input unchanged', () => {
    const value = { a: ['x\u0000'] };
    const clean = storableValue(value);
    expect(value).toEqual({ a: ['x\u0000'] });
    expect(clean).not.toBe(value);
  });

  it('keeps a `__proto__` key as data', () => {
    const clean = storableValue(JSON.parse('{"__proto__":{"polluted":true}}')) as object;
    expect(Object.getPrototypeOf(clean)).toBe(Object.prototype);
    expect(Object.keys(clean)).toEqual(['__proto__']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('gives JSON.stringify nothing jsonb refuses', () => {
    const json = JSON.stringify(storableValue(JSON.parse('{"a\\u0000":"\\ud800\\u0000"}')));
    expect(json).not.toMatch(/\\u0000|\\ud[89a-f]/i);
  });
});

describe('nestsDeeperThan', () => {
  it('counts each array or object as one level; scalars add none', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan([], 0)).toBe(true);
    expect(nestsDeeperThan([], 1)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 'x' }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 'x' }] }, 2)).toBe(true);
  });

  it('finds the deep branch among shallow ones', () => {
    expect(nestsDeeperThan([1, [2], { a: { b: { c: [] } } }, 'x'], 3)).toBe(true);
  });

  it('is iterative: a million levels do not exhaust the stack', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 1_000_000; i += 1) deep = [deep];
    expect(nestsDeeperThan(deep, MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('storableTimestamp', () => {
  it('reads an ISO 8601 string', () => {
    expect(storableTimestamp('2026-01-01T10:00:00Z')).toEqual(new Date('2026-01-01T10:00:00Z'));
  });

  it.each([
    ['not a time', 'not a time'],
    ['a number', 1_767_225_600],
    ['null', null],
    ['year 10000', '+010000-01-01T00:00:00Z'],
    ['year 0', '0000-01-01T00:00:00Z'],
  ])('is null for %s', (_case, value) => {
    expect(storableTimestamp(value)).toBeNull();
  });
});

describe('parseJsonBody', () => {
  it('returns the parsed body with NUL and lone surrogates in keys and values made U+FFFD', () => {
    const raw = Buffer.from(
      '{"a\\u0000":"x\\u0000y","list":["\\ud800",{"\\udc00k":"\\ud83d\\ude00"}],"n":1}',
    );
    expect(parseJsonBody(raw)).toEqual({
      'a\uFFFD': 'x\uFFFDy',
      list: ['\uFFFD', { '\uFFFDk': '😀' }],
      n: 1,
    });
  });

  it('reads bytes that are not UTF-8 as U+FFFD (never a lone surrogate)', () => {
    const raw = Buffer.concat([
      Buffer.from('{"k":"a'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('"}'),
    ]);
    expect(parseJsonBody(raw)).toEqual({ k: 'a\uFFFD\uFFFD\uFFFD' });
  });

  it('refuses a body that is not JSON with 400', () => {
    expect(refusal(() => parseJsonBody(Buffer.from('{"a":')))).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
      error: 'Webhook processing failed',
      message: 'The request body is not valid JSON',
    });
  });

  it.each([
    ['arrays', nestedArrays],
    ['objects', nestedObjects],
  ])(`accepts ${MAX_JSON_DEPTH} levels of %s and refuses one more with 400`, (_case, nested) => {
    expect(parseJsonBody(Buffer.from(nested(MAX_JSON_DEPTH)))).toBeDefined();
    expect(refusal(() => parseJsonBody(Buffer.from(nested(MAX_JSON_DEPTH + 1))))).toEqual(TOO_DEEP);
  });

  it('refuses 200,000 levels with 400, not a stack overflow', () => {
    expect(refusal(() => parseJsonBody(Buffer.from(nestedArrays(200_000))))).toEqual(TOO_DEEP);
  });

  it('refuses a deep value anywhere in the body, not only at its root', () => {
    const raw = `{"ok":"shallow","data":{"object":{"metadata":${nestedArrays(10_000)}}}}`;
    expect(refusal(() => parseJsonBody(Buffer.from(raw)))).toEqual(TOO_DEEP);
  });

  it('returns scalars as they are (receivers refuse shapes they do not expect)', () => {
    expect(parseJsonBody(Buffer.from('"a\\u0000"'))).toBe('a\uFFFD');
    expect(parseJsonBody(Buffer.from('42'))).toBe(42);
    expect(parseJsonBody(Buffer.from('null'))).toBeNull();
  });

  it("answers a caller's own error for bytes that are not JSON, and leaves its check the rest", () => {
    const options = {
      invalidJson: (message: string) => errors.invalidJson(message),
      refuseUnstorable: (parsed: unknown) => {
        if (JSON.stringify(parsed).includes('\\u0000')) throw new Error('refused');
      },
    };
    expect(refusal(() => parseJsonBody(Buffer.from('{"a":'), options))).toEqual({
      status: 400,
      code: 'INVALID_JSON',
      error: 'Invalid JSON',
      message: 'The request body is not valid JSON',
    });
    expect(() => parseJsonBody(Buffer.from('"a\\u0000"'), options)).toThrow('refused');
    // Returned as parsed: the check, not the kit, decides what a deep body is.
    const deep = nestedArrays(MAX_JSON_DEPTH + 1);
    expect(parseJsonBody(Buffer.from(deep), options)).toEqual(JSON.parse(deep));
  });
});
