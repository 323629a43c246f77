import type { Express } from 'express';
import request from 'supertest';
import {
  createServiceApp,
  dateField,
  dateTimeField,
  findHostileInput,
  formBody,
  MAX_JSON_DEPTH,
  renderPath,
  sendSuccess,
  validate,
} from '@crm/shared/http';
import { captureLogger } from '@crm/shared/testing';

/**
 * The one guard in front of every route (pure parts first, then through a
 * service app): U+0000 and unpaired surrogates in strings and keys, nesting deeper than
 * MAX_JSON_DEPTH, and dates outside years 0001..9999 are 400 VALIDATION_ERROR naming the field.
 */

/** `levels` arrays nested in each other around `inner`, as JSON text. */
const nestedArrays = (levels: number, inner = '') =>
  '['.repeat(levels) + inner + ']'.repeat(levels);

describe('findHostileInput', () => {
  it.each([
    ['NUL in a string', { a: 'x\u0000' }, ['a'], 'invalid_format'],
    ['a lone high surrogate at the end', { a: 'x\ud800' }, ['a'], 'invalid_format'],
    ['a lone low surrogate at the start', ['ok', '\udc00x'], [1], 'invalid_format'],
    ['a pair in the wrong order', { a: '\udc00\ud800' }, ['a'], 'invalid_format'],
    ['NUL in a key', { a: { 'k\u0000': 1 } }, ['a', 'k\u0000'], 'invalid_key'],
    ['a lone surrogate in a key', { '\ud800': 1 }, ['\ud800'], 'invalid_key'],
    ['NUL in a top-level string', 'x\u0000', [], 'invalid_format'],
    [
      'NUL deep in arrays',
      { leads: [{}, {}, { c: [0, ['\u0000']] }] },
      ['leads', 2, 'c', 1, 0],
      'invalid_format',
    ],
  ])('finds %s', (_case, value, path, code) => {
    expect(findHostileInput(value)).toEqual({ path, code, message: expect.any(String) });
  });

  it('keeps everything else: proper surrogate pairs, U+FFFD, control characters, escapes as text', () => {
    const value = {
      text: 'Élodie 😀 \uFFFD \t\n \u0001 \\u0000',
      ['😀 key']: [1, 2.5, -0, 1e308, true, false, null, '', {}, []],
      __proto__x: { constructor: 'c', prototype: 'p' },
    };
    expect(findHostileInput(value)).toBeUndefined();
    expect(findHostileInput(JSON.parse('{"__proto__":{"a":"b"},"constructor":1}'))).toBeUndefined();
  });

  it('reports the first problem in document order', () => {
    const value = JSON.parse('{"a":{"b":["fine","\\u0000"]},"c":"\\u0000","\\u0000":1}');
    expect(findHostileInput(value)?.path).toEqual(['a', 'b', 1]);
  });

  it(`allows ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}, naming where`, () => {
    expect(findHostileInput(JSON.parse(nestedArrays(MAX_JSON_DEPTH)))).toBeUndefined();
    expect(findHostileInput(JSON.parse(nestedArrays(MAX_JSON_DEPTH + 1)))).toEqual({
      path: Array(MAX_JSON_DEPTH).fill(0),
      code: 'too_big',
      message: `must not nest deeper than ${MAX_JSON_DEPTH} levels`,
    });
  });

  it('walks 200,000 levels without running out of stack (it does not recurse)', () => {
    const deep = JSON.parse(nestedArrays(200_000));
    expect(findHostileInput(deep)?.code).toBe('too_big');
    expect(findHostileInput(deep, 400_000)).toBeUndefined();
  });

  it('renders a path as validate() does, with the bad characters shown as escapes', () => {
    expect(renderPath(['leads', 3, 'custom_fields', 'a\u0000'])).toBe(
      'leads.3.custom_fields.a\\u0000',
    );
    expect(renderPath(['x\ud800', '\udfffy', '😀'])).toBe('x\\ud800.\\udfffy.😀');
  });
});

describe('dateField and dateTimeField', () => {
  const date = dateField('closes_on');
  const dateTime = dateTimeField('happened_at');

  it('take years 0001..9999 and refuse year 0000 with a message naming the field', () => {
    expect(date.safeParse('0001-01-01').success).toBe(true);
    expect(date.safeParse('9999-12-31').success).toBe(true);
    expect(() => validate(date, '0000-01-01', 'deal')).toThrow(
      'Invalid deal: closes_on must be between 0001-01-01 and 9999-12-31',
    );
    expect(dateTime.safeParse('2024-05-01T12:00:00Z').success).toBe(true);
    expect(dateTime.safeParse('0001-01-01T00:00:00+14:00').success).toBe(true);
    expect(dateTime.safeParse('0000-12-31T23:59:59Z').success).toBe(false);
  });

  it('keep the format rules: a real day, YYYY-MM-DD, an offset on date-times', () => {
    for (const bad of ['2023-02-29', '10000-01-01', '2024-1-1', '2024-01-01T00:00:00Z', '']) {
      expect(date.safeParse(bad).error?.issues[0].message).toBe(
        'closes_on must be a date (YYYY-MM-DD)',
      );
    }
    expect(date.safeParse('2024-02-29').success).toBe(true);
    expect(dateTime.safeParse('2024-05-01T12:00:00').success).toBe(false);
  });
});

describe('through a service app', () => {
  let app: Express;
  beforeAll(() => {
    app = createServiceApp({
      logger: captureLogger().logger,
      bodyLimitBytes: 1_048_576,
      health: { version: 'test' },
      routes: (a) => {
        a.post('/echo', (req, res) => sendSuccess(res, req.body));
        a.post('/form', formBody(1_048_576), (req, res) => sendSuccess(res, req.body));
        a.get('/query', (req, res) => sendSuccess(res, req.query));
      },
    });
  });

  const refused = (path: string, code: string, where: string, message: string) => ({
    success: false,
    error: 'Validation failed',
    code: 'VALIDATION_ERROR',
    message: `Invalid ${where}: ${path ? `${path}: ` : ''}${message}`,
    details: { issues: [{ path, code, message }] },
  });

  it('JSON: NUL, a lone surrogate (as \\u escapes) and too deep a body -> 400 naming the path', async () => {
    const post = (text: string) =>
      request(app).post('/echo').set('content-type', 'application/json').send(text);
    const nul = await post('{"a":[{"b":"x\\u0000"}]}');
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual(
      refused('a.0.b', 'invalid_format', 'request body', 'must not contain U+0000 (NUL)'),
    );
    const key = await post('{"a\\ud800b":1}');
    expect(key.body).toEqual(
      refused(
        'a\\ud800b',
        'invalid_key',
        'request body',
        'key must not contain an unpaired UTF-16 surrogate',
      ),
    );
    const deep = await post(`{"x":${nestedArrays(5000)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.details.issues[0]).toMatchObject({ code: 'too_big' });
  });

  it('JSON the guard lets through is parsed as before', async () => {
    const body = { a: ['😀', 1e300, null, { b: 'é\t' }], __proto__x: 1 };
    const res = await request(app).post('/echo').send(body);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(body);
  });

  it('forms: %00 in a name or value -> 400; malformed JSON is still INVALID_JSON', async () => {
    const value = await request(app).post('/form').type('form').send('a=1&b=x%00y');
    expect(value.body).toEqual(
      refused('b', 'invalid_format', 'request body', 'must not contain U+0000 (NUL)'),
    );
    const name = await request(app).post('/form').type('form').send('n%00=1');
    expect(name.body.details.issues[0]).toEqual({
      path: 'n\\u0000',
      code: 'invalid_key',
      message: 'key must not contain U+0000 (NUL)',
    });
    const ok = await request(app).post('/form').type('form').send('a=%F0%9F%98%80&b=2');
    expect(ok.body.data).toEqual({ a: '😀', b: '2' });
    const bad = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send('{"a":');
    expect(bad.body.code).toBe('INVALID_JSON');
  });

  it('query strings: %00 in a name or value, on any route (an unknown one too) -> 400', async () => {
    const res = await request(app).get('/query?ok=1&q=a%00');
    expect(res.body).toEqual(
      refused('q', 'invalid_format', 'query string', 'must not contain U+0000 (NUL)'),
    );
    expect((await request(app).get('/query?x=1&x=%00')).body.details.issues[0].path).toBe('x.1');
    expect((await request(app).get('/nowhere?%00=1')).status).toBe(400);
    expect((await request(app).get('/health?probe=%00')).status).toBe(400);
    const fine = await request(app).get('/query?q=%E2%82%AC&e=%ED%A0%80');
    expect(fine.status).toBe(200);
    expect(fine.body.data.q).toBe('€');
  });
});
