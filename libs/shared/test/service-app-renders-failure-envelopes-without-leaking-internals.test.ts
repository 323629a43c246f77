import type { Express } from 'express';
import request from 'supertest';
import { z } from 'zod';
import { createServiceApp, errors, sendSuccess, validate } from '@crm/shared/http';
import { captureLogger, eventually, type CapturedLogger } from '@crm/shared/testing';

const BODY_LIMIT = 256;
const DRIVER_TEXT = 'relation "secret_table" does not exist';

const contactSchema = z.object({
  email: z.email(),
  age: z.number().int().min(18),
});

function buildApp(capture: CapturedLogger): Express {
  return createServiceApp({
    logger: capture.logger,
    bodyLimitBytes: BODY_LIMIT,
    health: { version: 'test' },
    routes: (app) => {
      app.post('/echo', (req, res) => sendSuccess(res, req.body));
      app.get('/query', (req, res) => sendSuccess(res, { ok: true, q: req.query }));
      app.post('/contacts', (req, res) => {
        const contact = validate(contactSchema, req.body, 'contact');
        sendSuccess(res, contact, { status: 201, message: 'Contact created' });
      });
      app.get('/items/:id', (req, res) => sendSuccess(res, { id: req.params.id }));
      app.get('/boom', () => {
        const err = new Error(DRIVER_TEXT);
        err.stack = `Error: ${DRIVER_TEXT}\n    at Query.run (/srv/app/node_modules/pg/lib/query.js:1:1)`;
        throw err;
      });
      app.get('/async-boom', async () => {
        await Promise.resolve();
        throw new Error(`async ${DRIVER_TEXT}`);
      });
      app.get('/duplicate', () => {
        throw Object.assign(
          new Error('duplicate key value violates unique constraint "users_email_key"'),
          {
            code: '23505',
            detail: 'Key (email)=(ceo@example.com) already exists.',
            constraint: 'users_email_key',
            table: 'users',
          },
        );
      });
      app.get('/db-down', () => {
        throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), {
          code: 'ECONNREFUSED',
          address: '10.0.0.5',
          port: 5432,
        });
      });
      app.get('/limited', () => {
        throw errors.rateLimited(30);
      });
      app.get('/not-ours', () => {
        // A library error carrying the status of some upstream call is still our 500.
        throw Object.assign(new Error('upstream said 404 for https://api.internal/x'), {
          status: 404,
        });
      });
    },
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('createServiceApp: the failure envelope', () => {
  let capture: CapturedLogger;
  let app: Express;

  beforeEach(() => {
    capture = captureLogger();
    app = buildApp(capture);
  });

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    const res = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send('{"email": "a@b.c", ');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      success: false,
      error: 'Invalid JSON',
      code: 'INVALID_JSON',
      message: 'Request body is not valid JSON',
      details: null,
    });
  });

  it('never logs the body of a malformed JSON request (it may hold a password)', async () => {
    const res = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send('{"email": "a@b.c", "password": "hunter2-in-clear",');
    expect(res.status).toBe(400);
    await eventually(() =>
      expect(capture.lines().some((l) => l.msg === 'request completed')).toBe(true),
    );
    const rejected = capture.lines().find((l) => l.msg === 'request rejected');
    expect(rejected).toMatchObject({ level: 'debug', status: 400, path: '/echo' });
    expect(capture.text()).not.toContain('hunter2-in-clear');
  });

  it('answers a body over the limit with 413 naming the limit', async () => {
    const res = await request(app)
      .post('/echo')
      .send({ note: 'x'.repeat(BODY_LIMIT) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      success: false,
      error: 'Payload too large',
      code: 'PAYLOAD_TOO_LARGE',
      message: `Request body exceeds the limit of ${BODY_LIMIT} bytes`,
      details: { limit: BODY_LIMIT },
    });
  });

  it('accepts a body just under the limit', async () => {
    const body = { note: 'x'.repeat(BODY_LIMIT - 20) };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(BODY_LIMIT);
    const res = await request(app).post('/echo').send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: body, message: 'OK' });
  });

  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const res = await request(app).get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: 'Not found',
      code: 'NOT_FOUND',
      message: 'No route for GET /no/such/route',
      details: null,
    });
  });

  it('answers a known path with the wrong method with 404 NOT_FOUND', async () => {
    const res = await request(app).delete('/echo');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect(res.body.message).toBe('No route for DELETE /echo');
  });

  it('turns a thrown Error into 500 INTERNAL_ERROR without its message or stack', async () => {
    const res = await request(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      success: false,
      error: 'Internal server error',
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred',
      details: null,
    });
    for (const leaked of [
      'secret_table',
      'relation',
      'does not exist',
      'node_modules',
      'query.js',
    ]) {
      expect(res.text).not.toContain(leaked);
    }
  });

  it('logs the 500 at error level with the request id, the error and its stack', async () => {
    const res = await request(app).get('/boom').set('x-request-id', 'trace-boom-1');
    expect(res.status).toBe(500);
    expect(res.headers['x-request-id']).toBe('trace-boom-1');
    const failed = capture.lines().filter((l) => l.msg === 'request failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      level: 'error',
      request_id: 'trace-boom-1',
      method: 'GET',
      path: '/boom',
      status: 500,
      err: { type: 'Error', message: DRIVER_TEXT },
    });
    expect((failed[0].err as { stack: string }).stack).toContain('query.js');
  });

  it('turns a rejected async handler into 500 INTERNAL_ERROR as well', async () => {
    const res = await request(app).get('/async-boom');
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('INTERNAL_ERROR');
    expect(res.text).not.toContain('secret_table');
    expect(capture.lines().filter((l) => l.msg === 'request failed')).toHaveLength(1);
  });

  it('maps a unique violation (23505) to 409 CONFLICT without the driver text', async () => {
    const res = await request(app).get('/duplicate');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      success: false,
      error: 'Conflict',
      code: 'CONFLICT',
      message: 'A record with the same unique values already exists',
      details: null,
    });
    for (const leaked of ['users_email_key', 'ceo@example.com', 'duplicate key', 'users']) {
      expect(res.text).not.toContain(leaked);
    }
  });

  it('maps a refused database connection to 503 SERVICE_UNAVAILABLE without the address', async () => {
    const res = await request(app).get('/db-down');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: false,
      error: 'Service unavailable',
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is unavailable; try again shortly',
      details: null,
    });
    expect(res.text).not.toContain('10.0.0.5');
    expect(res.text).not.toContain('ECONNREFUSED');
  });

  it('answers a failed validate() with 400 VALIDATION_ERROR and the zod issues', async () => {
    const res = await request(app).post('/contacts').send({ email: 'not-an-email', age: 12 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^Invalid contact: email: /),
      details: {
        issues: [
          { path: 'email', message: expect.any(String), code: 'invalid_format' },
          { path: 'age', message: expect.any(String), code: 'too_small' },
        ],
      },
    });
  });

  it('reports a missing field by its path', async () => {
    const res = await request(app).post('/contacts').send({ email: 'a@example.com' });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([
      { path: 'age', message: expect.any(String), code: 'invalid_type' },
    ]);
  });

  it('passes a valid body through validate() to the handler', async () => {
    const res = await request(app).post('/contacts').send({ email: 'a@example.com', age: 30 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: { email: 'a@example.com', age: 30 },
      message: 'Contact created',
    });
  });

  it('answers errors.rateLimited(30) with 429, details.retryAfter and a retry-after header', async () => {
    const res = await request(app).get('/limited');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.body).toEqual({
      success: false,
      error: 'Too many requests',
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'Rate limit exceeded; retry after 30 seconds',
      details: { retryAfter: 30 },
    });
  });

  it('answers an undecodable path parameter with 400, not 500', async () => {
    const res = await request(app).get('/items/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Invalid request',
      code: 'INVALID_REQUEST',
      message: 'The request could not be understood',
      details: null,
    });
    expect(capture.lines().filter((l) => l.msg === 'request failed')).toHaveLength(0);
  });

  it('answers a body whose content-encoding does not decode with 400, not 500', async () => {
    const res = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      .send('{"not":"gzip"}');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_REQUEST');
  });

  it('answers an unsupported charset with 415', async () => {
    const res = await request(app)
      .post('/echo')
      .set('content-type', 'application/json; charset=latin2')
      .send('{}');
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('keeps a non-client error that merely carries a status as a 500', async () => {
    const res = await request(app).get('/not-ours');
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('INTERNAL_ERROR');
    expect(res.text).not.toContain('api.internal');
  });
});

describe('createServiceApp: the success envelope', () => {
  it('sendSuccess gives { success: true, data, message } with 200 and message OK by default', async () => {
    const app = buildApp(captureLogger());
    const res = await request(app)
      .post('/echo')
      .send({ name: 'Ada', tags: ['a', 'b'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { name: 'Ada', tags: ['a', 'b'] },
      message: 'OK',
    });
  });

  it('does not advertise express', async () => {
    const res = await request(buildApp(captureLogger())).post('/echo').send({});
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('createServiceApp: x-request-id', () => {
  let capture: CapturedLogger;
  let app: Express;

  beforeEach(() => {
    capture = captureLogger();
    app = buildApp(capture);
  });

  it.each(['abc-123', 'req_1.2:3', 'A'.repeat(128)])('echoes a valid caller id %j', async (id) => {
    const res = await request(app).post('/echo').set('x-request-id', id).send({});
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe(id);
  });

  it.each([
    ['too long', 'A'.repeat(129)],
    ['with spaces', 'abc 123'],
    ['with a newline-ish escape', 'abc%0d%0aSet-Cookie:x'],
    ['with quotes', '"abc"'],
  ])('replaces a caller id that is %s with a generated uuid', async (_why, id) => {
    const res = await request(app).post('/echo').set('x-request-id', id).send({});
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('generates a different uuid for each request without one', async () => {
    const first = await request(app).post('/echo').send({});
    const second = await request(app).post('/echo').send({});
    expect(first.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).toMatch(UUID);
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  });

  it('is present on error responses too (404, 400, 413, 500)', async () => {
    const responses = [
      await request(app).get('/nowhere').set('x-request-id', 'err-404'),
      await request(app)
        .post('/echo')
        .set('x-request-id', 'err-400')
        .set('content-type', 'application/json')
        .send('{'),
      await request(app)
        .post('/echo')
        .set('x-request-id', 'err-413')
        .send({ big: 'x'.repeat(BODY_LIMIT * 2) }),
      await request(app).get('/boom').set('x-request-id', 'err-500'),
    ];
    expect(responses.map((r) => [r.status, r.headers['x-request-id']])).toEqual([
      [404, 'err-404'],
      [400, 'err-400'],
      [413, 'err-413'],
      [500, 'err-500'],
    ]);
    const generated = await request(app).get('/nowhere');
    expect(generated.status).toBe(404);
    expect(generated.headers['x-request-id']).toMatch(UUID);
  });

  it('puts the same id on the request log line', async () => {
    const res = await request(app).post('/echo').send({});
    const id = res.headers['x-request-id'];
    await eventually(() =>
      expect(capture.lines().find((l) => l.msg === 'request completed')).toMatchObject({
        level: 'info',
        request_id: id,
        req: { method: 'POST', url: '/echo' },
        res: { statusCode: 200 },
      }),
    );
  });
});

describe('createServiceApp: the request log', () => {
  it('redacts credential headers and credential query values, keeps the rest', async () => {
    const capture = captureLogger();
    const res = await request(buildApp(capture))
      .get('/query?hub.mode=subscribe&hub.verify_token=vt-s3cr3t&hub.challenge=42&page=2')
      .set('authorization', 'Bearer tok-s3cr3t')
      .set('cookie', 'sid=cookie-s3cr3t')
      .set('x-hub-signature-256', 'sha256=sig-s3cr3t')
      .set('user-agent', 'jest-agent');
    expect(res.status).toBe(200);
    const line = await eventually(() => {
      const found = capture.lines().find((l) => l.msg === 'request completed');
      expect(found).toBeDefined();
      return found as { req: { url: string; headers: Record<string, string> } };
    });
    expect(line.req.url).toBe(
      '/query?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=42&page=2',
    );
    expect(line.req.headers).toMatchObject({
      authorization: '[redacted]',
      cookie: '[redacted]',
      'x-hub-signature-256': '[redacted]',
      'user-agent': 'jest-agent',
    });
    expect(capture.text()).not.toMatch(/s3cr3t/);
  });

  it('logs a 4xx at warn and a 5xx at error', async () => {
    const capture = captureLogger();
    const app = buildApp(capture);
    await request(app).get('/nowhere');
    await request(app).get('/boom');
    await eventually(() => {
      const requestLines = capture
        .lines()
        .filter((l) => l.msg === 'request completed' || l.msg === 'request errored');
      const levels = requestLines
        .map((l) => [(l.res as { statusCode: number }).statusCode, l.level])
        .sort((a, b) => Number(a[0]) - Number(b[0]));
      expect(levels).toEqual([
        [404, 'warn'],
        [500, 'error'],
      ]);
    });
  });
});
