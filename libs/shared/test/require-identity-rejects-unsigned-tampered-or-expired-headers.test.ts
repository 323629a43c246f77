import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { hmac } from '@crm/shared/crypto';
import { createServiceApp, sendSuccess } from '@crm/shared/http';
import {
  DEFAULT_IDENTITY_TTL_SECONDS,
  IDENTITY_HEADER,
  identityOf,
  requireIdentity,
  signIdentity,
  verifyIdentity,
  type Identity,
} from '@crm/shared/identity';
import { captureLogger, eventually, type CapturedLogger } from '@crm/shared/testing';

const SECRET = 'gateway-to-service-secret-0123456789';
const OTHER_SECRET = 'some-other-services-secret-9876543210';

const identity: Identity = { userId: randomUUID(), tenantId: randomUUID(), role: 'admin' };

function decodePayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

function withPayload(token: string, payload: Record<string, unknown>): string {
  const [version, , signature] = token.split('.');
  return `${version}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
}

describe('signIdentity / verifyIdentity', () => {
  const now = Date.UTC(2030, 0, 1, 12, 0, 0);

  it('signs v1.<payload>.<signature> with sub, tid, role and exp = now + ttl', () => {
    const token = signIdentity(identity, SECRET, { now });
    expect(token.split('.')).toHaveLength(3);
    expect(token.startsWith('v1.')).toBe(true);
    expect(decodePayload(token)).toEqual({
      sub: identity.userId,
      tid: identity.tenantId,
      role: 'admin',
      exp: now / 1000 + DEFAULT_IDENTITY_TTL_SECONDS,
    });
    expect(decodePayload(signIdentity(identity, SECRET, { now, ttlSeconds: 5 })).exp).toBe(
      now / 1000 + 5,
    );
  });

  it('verifies its own token and returns the identity', () => {
    const token = signIdentity(identity, SECRET, { now });
    expect(verifyIdentity(token, SECRET, { now })).toEqual({ ok: true, identity });
  });

  it('expires at exp: valid one second before, expired at and after', () => {
    const token = signIdentity(identity, SECRET, { now, ttlSeconds: 60 });
    expect(verifyIdentity(token, SECRET, { now: now + 59_000 }).ok).toBe(true);
    expect(verifyIdentity(token, SECRET, { now: now + 60_000 })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(verifyIdentity(token, SECRET, { now: now + 3_600_000 })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('rejects another secret, a changed payload and a changed signature as bad_signature', () => {
    const token = signIdentity(identity, SECRET, { now });
    expect(verifyIdentity(token, OTHER_SECRET, { now })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const promoted = withPayload(token, { ...decodePayload(token), role: 'owner' });
    expect(verifyIdentity(promoted, SECRET, { now })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const [version, payload, signature] = token.split('.');
    const flipped = `${version}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(verifyIdentity(flipped, SECRET, { now })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it.each([
    ['missing', undefined, 'missing'],
    ['empty', '', 'missing'],
    ['garbage', 'not-a-token', 'malformed'],
    ['two parts', 'v1.abc', 'malformed'],
    ['four parts', 'v1.a.b.c', 'malformed'],
    ['another version', 'v2.a.b', 'malformed'],
  ])('rejects a %s token', (_name, token, reason) => {
    expect(verifyIdentity(token, SECRET)).toEqual({ ok: false, reason });
  });

  it('rejects a correctly signed payload that is not an identity (so the signer is not trusted blindly)', () => {
    // Signs an arbitrary payload with the right secret, as a buggy signer would.
    const sign = (payload: unknown) => {
      const part = `v1.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
      return `${part}.${hmac('sha256', SECRET, part, 'base64url')}`;
    };
    const exp = now / 1000 + 60;
    const valid = { sub: identity.userId, tid: identity.tenantId, role: 'admin', exp };
    expect(verifyIdentity(sign(valid), SECRET, { now })).toEqual({ ok: true, identity });
    for (const bad of [
      { ...valid, role: 'superuser' },
      { ...valid, tid: 'not-a-uuid' },
      { ...valid, exp: String(exp) },
      { sub: identity.userId, role: 'admin', exp },
      'just a string',
    ]) {
      expect(verifyIdentity(sign(bad), SECRET, { now })).toEqual({
        ok: false,
        reason: 'malformed',
      });
    }
  });
});

describe('requireIdentity(secret) on a route', () => {
  let capture: CapturedLogger;
  let app: Express;
  const seen: Array<Identity | undefined> = [];

  beforeEach(() => {
    seen.length = 0;
    capture = captureLogger();
    app = createServiceApp({
      logger: capture.logger,
      bodyLimitBytes: 1024,
      health: { version: 'test' },
      routes: (a) => {
        a.get('/api/me', requireIdentity(SECRET), (req, res) => {
          seen.push(req.identity);
          sendSuccess(res, identityOf(req));
        });
        a.get('/api/unguarded', (req, res) => sendSuccess(res, { identity: req.identity ?? null }));
        a.get('/api/strict', (req, res) => sendSuccess(res, identityOf(req)));
      },
    });
  });

  const unauthorized = (reason: string) => ({
    success: false,
    error: 'Unauthorized',
    code: 'UNAUTHORIZED',
    message: 'A valid session is required',
    details: { reason },
  });

  it('lets a valid identity through with 200 and sets req.identity', async () => {
    const res = await request(app)
      .get('/api/me')
      .set(IDENTITY_HEADER, signIdentity(identity, SECRET));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: identity, message: 'OK' });
    expect(seen).toEqual([identity]);
  });

  it('logs the tenant id of an identified request', async () => {
    const res = await request(app)
      .get('/api/me')
      .set(IDENTITY_HEADER, signIdentity(identity, SECRET));
    expect(res.status).toBe(200);
    const line = await eventually(() => {
      const raw = capture
        .text()
        .split('\n')
        .find((l) => l.includes('"request completed"'));
      expect(raw).toBeDefined();
      return raw as string;
    });
    expect(JSON.parse(line)).toMatchObject({
      tenantId: identity.tenantId,
      request_id: res.headers['x-request-id'],
      req: { headers: { [IDENTITY_HEADER]: '[redacted]' } },
    });
    // Each key once: a line with a repeated key is ambiguous to log pipelines.
    expect(line.match(/"request_id":/g)).toHaveLength(1);
    expect(line.match(/"tenantId":/g)).toHaveLength(1);
  });

  it('answers a missing header with 401 Unauthorized', async () => {
    const res = await request(app).get('/api/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized('missing'));
    expect(seen).toEqual([]);
  });

  it('answers a garbage header with 401 Unauthorized', async () => {
    const res = await request(app).get('/api/me').set(IDENTITY_HEADER, 'Bearer garbage');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized('malformed'));
  });

  it('answers a tampered payload (role raised to owner) with 401 Unauthorized', async () => {
    const token = signIdentity({ ...identity, role: 'viewer' }, SECRET);
    const tampered = withPayload(token, { ...decodePayload(token), role: 'owner' });
    const res = await request(app).get('/api/me').set(IDENTITY_HEADER, tampered);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized('bad_signature'));
    expect(seen).toEqual([]);
  });

  it('answers a tampered payload (another tenant) with 401 Unauthorized', async () => {
    const token = signIdentity(identity, SECRET);
    const tampered = withPayload(token, { ...decodePayload(token), tid: randomUUID() });
    const res = await request(app).get('/api/me').set(IDENTITY_HEADER, tampered);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized('bad_signature'));
  });

  it('answers a tampered signature with 401 Unauthorized', async () => {
    const token = signIdentity(identity, SECRET);
    const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const res = await request(app).get('/api/me').set(IDENTITY_HEADER, altered);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized('bad_signature'));
  });

  it('answers a token signed with another secret with 401 Unauthorized', async () => {
    const res = await request(app)
      .get('/api/me')
      .set(IDENTITY_HEADER, signIdentity(identity, OTHER_SECRET));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized('bad_signature'));
  });

  it('answers an expired token with 401 Unauthorized', async () => {
    const twoMinutesAgo = Date.now() - 120_000;
    const res = await request(app)
      .get('/api/me')
      .set(IDENTITY_HEADER, signIdentity(identity, SECRET, { now: twoMinutesAgo, ttlSeconds: 60 }));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized('expired'));
  });

  it('does not accept a bare x-tenant-id or a bearer token in place of the identity header', async () => {
    const res = await request(app)
      .get('/api/me')
      .set('x-tenant-id', identity.tenantId)
      .set('authorization', `Bearer ${signIdentity(identity, SECRET)}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized('missing'));
  });

  it('sets nothing on a route without the guard, and identityOf() there answers 401', async () => {
    const token = signIdentity(identity, SECRET);
    const open = await request(app).get('/api/unguarded').set(IDENTITY_HEADER, token);
    expect(open.status).toBe(200);
    expect(open.body.data).toEqual({ identity: null });
    const strict = await request(app).get('/api/strict').set(IDENTITY_HEADER, token);
    expect(strict.status).toBe(401);
    expect(strict.body).toEqual({
      success: false,
      error: 'Unauthorized',
      code: 'UNAUTHORIZED',
      message: 'A valid session is required',
      details: null,
    });
  });
});

describe('INTERNAL_TOKEN_SECRET rotated: the previous secret is accepted until it is dropped', () => {
  const NEW_SECRET = 'the-new-gateway-to-service-secret-0123';
  const rotating = createServiceApp({
    logger: captureLogger().logger,
    bodyLimitBytes: 1024,
    health: { version: 'test' },
    routes: (a) => {
      a.get(
        '/api/me',
        requireIdentity({ internalTokenSecret: NEW_SECRET, previousInternalTokenSecret: SECRET }),
        (req, res) => sendSuccess(res, identityOf(req)),
      );
    },
  });

  it('a service holding new + previous accepts headers signed with either, and no other', async () => {
    for (const secret of [SECRET, NEW_SECRET]) {
      const res = await request(rotating)
        .get('/api/me')
        .set(IDENTITY_HEADER, signIdentity(identity, secret));
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(identity);
    }
    const res = await request(rotating)
      .get('/api/me')
      .set(IDENTITY_HEADER, signIdentity(identity, OTHER_SECRET));
    expect(res.status).toBe(401);
    expect(res.body.details).toEqual({ reason: 'bad_signature' });
  });

  it('verifyIdentity with a list checks each secret; a list without the signer refuses', () => {
    const token = signIdentity(identity, SECRET);
    expect(verifyIdentity(token, [NEW_SECRET, SECRET])).toEqual({ ok: true, identity });
    expect(verifyIdentity(token, [NEW_SECRET])).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyIdentity(token, [])).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
