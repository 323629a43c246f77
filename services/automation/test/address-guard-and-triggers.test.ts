import { createSecretBox, newSigningSecret } from '../src/secrets/secret-box';
import { nonPublicRange } from '../src/engine/address-guard';
import { TenantLimiter } from '../src/engine/limiter';
import { conditionHolds, triggerMatches } from '../src/engine/triggers';

describe('nonPublicRange (the SSRF guard, ipaddr.js ranges)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
  ])('%s is refused (%s)', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => expect(nonPublicRange(address)).toBeUndefined(),
  );
});

describe('trigger matching and conditions', () => {
  const record = { id: 'r1', status: 'new', email: 'a@b.example', tags: ['vip'], empty: null };
  it('wildcards match one token', () => {
    const trigger = { event: 'lead.*', conditions: [] };
    expect(triggerMatches(trigger, 'lead.created', record)).toBe(true);
    expect(triggerMatches(trigger, 'deal.created', record)).toBe(false);
  });
  it.each([
    [{ field: 'status', op: 'equals', value: 'new' }, true],
    [{ field: 'status', op: 'equals', value: 'lost' }, false],
    [{ field: 'status', op: 'not_equals', value: 'lost' }, true],
    [{ field: 'missing', op: 'not_equals', value: 'x' }, true],
    [{ field: 'email', op: 'contains', value: '@b.' }, true],
    [{ field: 'tags', op: 'contains', value: 'vip' }, true],
    [{ field: 'status', op: 'contains', value: 1 }, false],
    [{ field: 'status', op: 'exists' }, true],
    [{ field: 'empty', op: 'exists' }, false],
    [{ field: 'status.deeper', op: 'exists' }, false],
  ] as const)('%j -> %s', (condition, holds) => {
    expect(conditionHolds(record, condition)).toBe(holds);
  });
});

describe('TenantLimiter', () => {
  it('bounds runs overall and per tenant; a full tenant does not hold back others', async () => {
    const limiter = new TenantLimiter(3, 2);
    const releases: Array<() => void> = [];
    const started: string[] = [];
    const job = (name: string) => () =>
      new Promise<void>((resolve) => {
        started.push(name);
        releases.push(resolve);
      });
    const all = [
      limiter.run('a', job('a1')),
      limiter.run('a', job('a2')),
      limiter.run('a', job('a3')),
      limiter.run('b', job('b1')),
      limiter.run('c', job('c1')),
    ];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a1', 'a2', 'b1']);
    // b1 ends: a3 waits first, but tenant a is at its limit, so c1 takes the slot.
    releases[2]();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1']);
    while (releases.length < 5) {
      releases.forEach((release) => release());
      await new Promise((r) => setImmediate(r));
    }
    releases.forEach((release) => release());
    await Promise.all(all);
    expect(started.sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'c1']);
  });
});

describe('secret box (sealed signing secrets)', () => {
  it('opens what it sealed; another key, or a tampered value, opens nothing', () => {
    const box = createSecretBox('a'.repeat(32));
    const secret = newSigningSecret();
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed)).toBe(secret);
    expect(createSecretBox('b'.repeat(32)).open(sealed)).toBeUndefined();
    expect(box.open(`${sealed.slice(0, -2)}AA`)).toBeUndefined();
    expect(box.open('plain')).toBeUndefined();
  });
});
