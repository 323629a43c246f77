import { createPurposeSecretBox, WORKFLOW_SIGNING_SECRETS } from '@crm/shared/crypto';
import { newSigningSecret } from '../src/workflows/signing-secret';
import { addressRange, nonPublicHost, nonPublicRange } from '@crm/shared/outbound';
import { TenantLimiter } from '../src/engine/limiter';
import { eventTypesMatching } from '@crm/shared/automation';
import { conditionHolds, triggerMatches } from '../src/engine/triggers';
import { publicAddressRefusal } from '../src/workflows/public-webhook-target';

/**
 * Every special address form against the guard: the range that decides (for an IPv4-mapped or
 * NAT64 well-known-prefix address, the range of the IPv4 address it carries) and the verdict.
 * Only 'unicast' is allowed, and for IPv6 only inside global unicast 2000::/3.
 */
const ADDRESS_TABLE: Array<[address: string, range: string, verdict: 'allowed' | 'refused']> = [
  // IPv4
  ['8.8.8.8', 'unicast', 'allowed'],
  ['93.184.216.34', 'unicast', 'allowed'],
  ['0.0.0.0', 'unspecified', 'refused'],
  ['127.0.0.1', 'loopback', 'refused'],
  ['10.1.2.3', 'private', 'refused'],
  ['172.16.0.1', 'private', 'refused'],
  ['192.168.1.1', 'private', 'refused'],
  ['100.64.0.1', 'carrierGradeNat', 'refused'],
  ['169.254.169.254', 'linkLocal', 'refused'],
  ['198.18.0.1', 'reserved', 'refused'], // benchmarking
  ['192.0.2.1', 'reserved', 'refused'], // documentation (TEST-NET-1)
  ['198.51.100.1', 'reserved', 'refused'], // documentation (TEST-NET-2)
  ['203.0.113.1', 'reserved', 'refused'], // documentation (TEST-NET-3)
  ['240.0.0.1', 'reserved', 'refused'],
  ['224.0.0.1', 'multicast', 'refused'],
  ['255.255.255.255', 'broadcast', 'refused'],
  // IPv6, native
  ['2606:4700:4700::1111', 'unicast', 'allowed'],
  ['::', 'unspecified', 'refused'],
  ['::1', 'loopback', 'refused'],
  ['fe80::1', 'linkLocal', 'refused'],
  ['fc00::1', 'uniqueLocal', 'refused'],
  ['fd00::1', 'uniqueLocal', 'refused'],
  ['fec0::1', 'deprecatedSiteLocal', 'refused'],
  ['ff02::1', 'multicast', 'refused'],
  ['2001:db8::1', 'reserved', 'refused'], // documentation
  ['3fff::1', 'reserved', 'refused'], // documentation (RFC 9637)
  ['2001:2::1', 'benchmarking', 'refused'],
  ['100::1', 'discard', 'refused'],
  ['4000::1', 'reserved', 'refused'], // outside global unicast 2000::/3
  ['1::1', 'reserved', 'refused'],
  // IPv6 forms that carry an IPv4 address
  ['::7f00:1', 'ipv4Compatible', 'refused'], // [::127.0.0.1], deprecated
  ['::808:808', 'ipv4Compatible', 'refused'], // refused whatever it carries
  ['::ffff:127.0.0.1', 'loopback', 'refused'],
  ['::ffff:7f00:1', 'loopback', 'refused'],
  ['::ffff:10.0.0.1', 'private', 'refused'],
  ['::ffff:8.8.8.8', 'unicast', 'allowed'],
  ['::ffff:0:7f00:1', 'rfc6145', 'refused'], // IPv4-translated
  ['64:ff9b::7f00:1', 'loopback', 'refused'], // NAT64 well-known prefix: judged as 127.0.0.1
  ['64:ff9b::a9fe:a9fe', 'linkLocal', 'refused'],
  ['64:ff9b::808:808', 'unicast', 'allowed'], // NAT64 of 8.8.8.8 (DNS64 networks need it)
  ['64:ff9b:1::808:808', 'rfc6052', 'refused'], // local-use NAT64 prefix: refused outright
  ['2002:7f00:1::', '6to4', 'refused'],
  ['2002:808:808::1', '6to4', 'refused'], // refused whatever it carries
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo', 'refused'],
  // not an address
  ['example.com', 'invalid', 'refused'],
  ['2130706433', 'invalid', 'refused'],
];

describe('addressRange and nonPublicRange (the SSRF guard, ipaddr.js ranges)', () => {
  it.each(ADDRESS_TABLE)('%s is %s: %s', (address, range, verdict) => {
    expect(addressRange(address)).toBe(range);
    expect(nonPublicRange(address)).toBe(verdict === 'allowed' ? undefined : range);
  });
});

describe('nonPublicHost (the save-time rule for a webhook URL host)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['[::7f00:1]', 'ipv4Compatible'],
    ['[::1]', 'loopback'],
    ['[64:ff9b::7f00:1]', 'loopback'],
    ['localhost', 'loopback'],
    ['LOCALHOST.', 'loopback'],
    ['api.localhost', 'loopback'],
    ['10.0.0.1', 'private'],
  ])('%s is refused (%s)', (host, range) => {
    expect(nonPublicHost(host)).toBe(range);
  });
  it.each(['example.com', 'localhost.example.com', '8.8.8.8', '[2606:4700:4700::1111]'])(
    '%s passes (a DNS name is judged when it is resolved, at send time)',
    (host) => expect(nonPublicHost(host)).toBeUndefined(),
  );
  it('describes a refusal in words', () => {
    expect(publicAddressRefusal('127.0.0.1', 'loopback')).toBe(
      'webhook URL must point to a public address: 127.0.0.1 is loopback',
    );
    expect(publicAddressRefusal('[::7f00:1]', 'ipv4Compatible')).toBe(
      'webhook URL must point to a public address: [::7f00:1] is IPv4-compatible IPv6 (deprecated)',
    );
  });
});

describe('trigger matching and conditions', () => {
  const record = { id: 'r1', status: 'new', email: 'a@b.example', tags: ['vip'], empty: null };
  it('wildcards match one token', () => {
    const trigger = { event: 'lead.*', conditions: [] };
    expect(triggerMatches(trigger, 'lead.created', record)).toBe(true);
    expect(triggerMatches(trigger, 'deal.created', record)).toBe(false);
  });
  it.each([
    ['lead.*', ['lead.created', 'lead.updated', 'lead.deleted']],
    ['email.>', ['email.opened', 'email.clicked', 'email.replied']],
    ['deal.stage_changed', ['deal.stage_changed']],
    ['lead.created.extra', []],
  ])('the types a trigger of %s matches (what a test run may pick from)', (trigger, types) => {
    expect(eventTypesMatching(trigger)).toEqual(types);
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
    const box = createPurposeSecretBox('a'.repeat(32), WORKFLOW_SIGNING_SECRETS);
    const secret = newSigningSecret();
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed)).toBe(secret);
    expect(
      createPurposeSecretBox('b'.repeat(32), WORKFLOW_SIGNING_SECRETS).open(sealed),
    ).toBeUndefined();
    expect(box.open(`${sealed.slice(0, -2)}AA`)).toBeUndefined();
    expect(box.open('plain')).toBeUndefined();
  });
});
