import { CredentialUseThrottle } from '../src/mcp/credential-use-throttle';

describe("a credential's use", () => {
  it('is due once per window per credential', () => {
    const throttle = new CredentialUseThrottle(60_000, 100);
    expect(throttle.due('key:a', 0)).toBe(true);
    expect(throttle.due('key:a', 59_999)).toBe(false);
    expect(throttle.due('oauth:a', 59_999)).toBe(true);
    expect(throttle.due('key:a', 60_000)).toBe(true);
    expect(throttle.due('key:a', 60_001)).toBe(false);
  });

  it('is remembered in bounded memory: the stale ones are dropped past the bound', () => {
    const throttle = new CredentialUseThrottle(60_000, 1_000);
    // A new credential every 10 ms for an hour: 360,000 in all, 6,000 of them per window.
    for (let i = 0; i < 360_000; i++) throttle.due(`key:${i}`, i * 10);
    // At most the window's credentials, and the bound's doubling while only they are left.
    expect(throttle.size).toBeLessThanOrEqual(2 * 6_000 + 1);
    // Those still in the window are remembered: not due again.
    expect(throttle.due('key:359999', 3_600_000)).toBe(false);
    // A dropped one (used an hour ago) is due, as it would have been anyway.
    expect(throttle.due('key:0', 3_600_000)).toBe(true);
  });

  it('stays under its bound while few credentials are in use', () => {
    const throttle = new CredentialUseThrottle(60_000, 50);
    // 10 credentials a minute for a day.
    for (let minute = 0; minute < 1_440; minute++) {
      for (let k = 0; k < 10; k++) throttle.due(`key:${minute}-${k}`, minute * 60_000);
    }
    expect(throttle.size).toBeLessThanOrEqual(51);
  });
});
