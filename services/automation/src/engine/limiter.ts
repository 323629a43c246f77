/**
 * Bounded concurrency, overall and per tenant: `run(tenant, fn)` starts `fn` when fewer than
 * `maxTotal` runs are in progress and fewer than `maxPerTenant` of them are this tenant's;
 * otherwise it waits its turn. Waiters of a tenant at its limit do not hold back other tenants'
 * (the first waiter whose tenant has room goes next), so one tenant's slow receivers occupy at
 * most `maxPerTenant` slots.
 */
export class TenantLimiter {
  private active = 0;
  private readonly perTenant = new Map<string, number>();
  private readonly waiting: Array<{ tenant: string; start: () => void }> = [];

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerTenant: number,
  ) {}

  /** Runs in progress plus runs waiting. */
  get size(): number {
    return this.active + this.waiting.length;
  }

  async run<T>(tenant: string, fn: () => Promise<T>): Promise<T> {
    await this.acquire(tenant);
    try {
      return await fn();
    } finally {
      this.release(tenant);
    }
  }

  private hasRoom(tenant: string): boolean {
    return this.active < this.maxTotal && (this.perTenant.get(tenant) ?? 0) < this.maxPerTenant;
  }

  private take(tenant: string): void {
    this.active++;
    this.perTenant.set(tenant, (this.perTenant.get(tenant) ?? 0) + 1);
  }

  private acquire(tenant: string): Promise<void> {
    if (this.waiting.length === 0 && this.hasRoom(tenant)) {
      this.take(tenant);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting.push({ tenant, start: resolve });
      this.pump();
    });
  }

  private release(tenant: string): void {
    this.active--;
    const left = (this.perTenant.get(tenant) ?? 1) - 1;
    if (left === 0) this.perTenant.delete(tenant);
    else this.perTenant.set(tenant, left);
    this.pump();
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length && this.active < this.maxTotal;) {
      const waiter = this.waiting[i];
      if (this.hasRoom(waiter.tenant)) {
        this.waiting.splice(i, 1);
        this.take(waiter.tenant);
        waiter.start();
      } else {
        i++;
      }
    }
  }
}
