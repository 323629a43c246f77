import { randomInt, randomUUID } from 'node:crypto';
import { createAccount, PASSWORD, testDb, testGateway, type TestGateway } from '@crm/test-kit';
import request from 'supertest';
import { delayBeforeAttempt } from '../src/rate-limit/sign-in-failures';

/**
 * Failed passwords are counted per account (from any address) and per account and address;
 * past either limit each further attempt waits a growing delay, bounded by
 * SIGN_IN_MAX_DELAY_SECONDS. The gateways sit behind one trusted proxy (TRUST_PROXY=1), so each
 * test picks its client addresses with X-Forwarded-For. Every test uses accounts of its own:
 * the counters are keyed by email.
 */
const db = testDb();
const gateways: TestGateway[] = [];
afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await db.close();
});

function gateway(env: Record<string, string>): TestGateway {
  const gw = testGateway({ TRUST_PROXY: '1', ...env });
  gateways.push(gw);
  return gw;
}

/** A client address, as the trusted proxy forwards it; random, so tests never share one. */
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function signIn(gw: TestGateway, from: string, email: string, password: string) {
  return request(gw.app)
    .post('/api/auth/sign-in')
    .set('X-Forwarded-For', from)
    .send({ email, password });
}

/** The documented 429: envelope, Retry-After = details.retryAfter within (0, max]; no cookie. */
function expectWait(res: request.Response, maxSeconds: number): number {
  expect(res.status).toBe(429);
  const retryAfter = res.body.details?.retryAfter as number;
  expect(res.body).toEqual({
    success: false,
    error: 'Too many requests',
    code: 'RATE_LIMIT_EXCEEDED',
    message: `Rate limit exceeded; retry after ${retryAfter} seconds`,
    details: { retryAfter },
  });
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
  expect(res.headers['retry-after']).toBe(String(retryAfter));
  expect(res.headers['set-cookie']).toBeUndefined();
  return retryAfter;
}

async function statuses(
  gw: TestGateway,
  from: string,
  email: string,
  attempts: number,
): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < attempts; i++) {
    seen.push((await signIn(gw, from, email, 'wrong password!')).status);
  }
  return seen;
}

const repeat = (status: number, times: number) => Array<number>(times).fill(status);

describe('per account, across addresses', () => {
  const limits = {
    SIGN_IN_FAILURES_PER_ACCOUNT: '10',
    SIGN_IN_FAILURES_PER_ACCOUNT_AND_IP: '1000',
    SIGN_IN_FIRST_DELAY_SECONDS: '5',
    SIGN_IN_MAX_DELAY_SECONDS: '5',
  };

  it('41 wrong passwords from one address: the right one from another waits until the block ends', async () => {
    const gw = gateway(limits);
    const user = await createAccount(db, 'owner');
    const attacker = address();

    expect(await statuses(gw, attacker, user.email, 41)).toEqual([
      ...repeat(401, 10),
      ...repeat(429, 31),
    ]);
    const owner = address();
    const refused = await signIn(gw, owner, user.email, PASSWORD);
    const retryAfter = expectWait(refused, 5);

    await sleep(retryAfter * 1000 + 200);
    const after = await signIn(gw, owner, user.email, PASSWORD);
    expect(after.status).toBe(200);
    expect(after.headers['set-cookie']).toBeDefined();

    // The success ended the run of failures: the attacker starts again from none.
    expect(await statuses(gw, attacker, user.email, 11)).toEqual([...repeat(401, 10), 429]);
  }, 30_000);

  it('an unknown email is counted and refused the same way, whatever its case and spaces', async () => {
    const gw = gateway(limits);
    const email = `Nobody-${randomUUID()}@Example.test`;
    const variants = [email, email.toLowerCase(), ` ${email.toUpperCase()} `];
    const seen: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await signIn(gw, address(), variants[i % 3], 'wrong password!');
      seen.push(res.status);
      if (res.status === 429) expectWait(res, 5);
    }
    expect(seen).toEqual([...repeat(401, 10), 429, 429]);
  });

  it('an address the account signed in from before is not held by the account block', async () => {
    const gw = gateway({
      ...limits,
      SIGN_IN_FIRST_DELAY_SECONDS: '60',
      SIGN_IN_MAX_DELAY_SECONDS: '60',
    });
    const user = await createAccount(db, 'traveller');
    const home = address();
    expect((await signIn(gw, home, user.email, PASSWORD)).status).toBe(200);

    expect(await statuses(gw, address(), user.email, 11)).toEqual([...repeat(401, 10), 429]);
    expectWait(await signIn(gw, address(), user.email, PASSWORD), 60);
    expect((await signIn(gw, home, user.email, PASSWORD)).status).toBe(200);
  });

  it('concurrent wrong passwords do not slip past the limit', async () => {
    const gw = gateway({ ...limits, SIGN_IN_FAILURES_PER_ACCOUNT: '3' });
    const user = await createAccount(db, 'burst');
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => signIn(gw, address(), user.email, 'wrong password!')),
    );
    const checked = burst.filter((res) => res.status === 401).length;
    expect(checked).toBeGreaterThanOrEqual(1);
    expect(checked).toBeLessThanOrEqual(3);
    for (const res of burst.filter((r) => r.status !== 401)) expectWait(res, 5);
  });
});

describe('per account and address', () => {
  it('past the limit that address waits a growing, bounded delay; other addresses still sign in', async () => {
    const gw = gateway({
      SIGN_IN_FAILURES_PER_ACCOUNT: '1000',
      SIGN_IN_FAILURES_PER_ACCOUNT_AND_IP: '3',
      SIGN_IN_FIRST_DELAY_SECONDS: '2',
      SIGN_IN_MAX_DELAY_SECONDS: '4',
    });
    const user = await createAccount(db, 'typo');
    const here = address();

    expect(await statuses(gw, here, user.email, 3)).toEqual([401, 401, 401]);
    // Even the right password waits: the delay is taken before the password is looked at.
    const first = expectWait(await signIn(gw, here, user.email, PASSWORD), 2);
    expect((await signIn(gw, address(), user.email, PASSWORD)).status).toBe(200);

    await sleep(first * 1000 + 200);
    expect(await statuses(gw, here, user.email, 1)).toEqual([401]);
    const second = expectWait(await signIn(gw, here, user.email, 'wrong password!'), 4);
    expect(second).toBeGreaterThan(2);

    await sleep(second * 1000 + 200);
    expect(await statuses(gw, here, user.email, 1)).toEqual([401]);
    expectWait(await signIn(gw, here, user.email, 'wrong password!'), 4);
  }, 30_000);

  it('a success from the address resets its count', async () => {
    const gw = gateway({
      SIGN_IN_FAILURES_PER_ACCOUNT: '1000',
      SIGN_IN_FAILURES_PER_ACCOUNT_AND_IP: '3',
      SIGN_IN_FIRST_DELAY_SECONDS: '60',
    });
    const user = await createAccount(db, 'reset');
    const here = address();
    expect(await statuses(gw, here, user.email, 2)).toEqual([401, 401]);
    expect((await signIn(gw, here, user.email, PASSWORD)).status).toBe(200);
    expect(await statuses(gw, here, user.email, 4)).toEqual([401, 401, 401, 429]);
  });
});

describe('delayBeforeAttempt', () => {
  it('doubles from the first delay and stops at the maximum', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 50, 5000].map((n) => delayBeforeAttempt(n, 30, 900));
    expect(delays).toEqual([30, 60, 120, 240, 480, 900, 900, 900, 900]);
  });
});
