/**
 * When to record a credential's use (`last_used_at`): at most once per `everyMs` per
 * credential, remembered in process. The memory is bounded: once it holds more than
 * `maxEntries` credentials, those last recorded a window or more ago are dropped (their next
 * use is due anyway, so dropping them changes no answer). What stays is the credentials used
 * within the last window; while they alone are over the bound, the next pruning waits until the
 * memory has doubled, so a burst of many credentials costs a sweep now and then, not one per
 * request.
 */
export class CredentialUseThrottle {
  private readonly last = new Map<string, number>();
  private pruneAbove: number;

  constructor(
    private readonly everyMs: number,
    private readonly maxEntries: number,
  ) {
    this.pruneAbove = maxEntries;
  }

  /** Whether the use of `credential` at `now` is to be recorded (and, if so, it is noted). */
  due(credential: string, now: number): boolean {
    if (now - (this.last.get(credential) ?? -Infinity) < this.everyMs) return false;
    this.last.set(credential, now);
    if (this.last.size > this.pruneAbove) this.prune(now);
    return true;
  }

  /** Credentials remembered: what the bound holds down. */
  get size(): number {
    return this.last.size;
  }

  private prune(now: number): void {
    for (const [credential, at] of this.last) {
      if (now - at >= this.everyMs) this.last.delete(credential);
    }
    this.pruneAbove = Math.max(this.maxEntries, this.last.size * 2);
  }
}
