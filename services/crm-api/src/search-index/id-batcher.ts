/**
 * Gathers ids from concurrent callers into batches: `add` resolves once the batch holding its id
 * has been written (rejects if that write failed), so a consumer can ack each event only after
 * the write that covers it has committed. A batch is written when it holds `maxIds` ids or
 * `waitMs` after its first one; batches are written one at a time, in order.
 */
export class IdBatcher {
  private ids = new Set<string>();
  private done: { promise: Promise<void>; settle: (err?: unknown) => void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (ids: string[]) => Promise<void>,
    private readonly maxIds: number,
    private readonly waitMs: number,
  ) {}

  add(id: string): Promise<void> {
    this.ids.add(id);
    const batch = (this.done ??= settleable());
    if (this.ids.size >= this.maxIds) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.waitMs);
    return batch.promise;
  }

  /** Resolves when every batch begun so far has been written (or has failed). */
  async drained(): Promise<void> {
    this.flush();
    await this.writing;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.done;
    if (!batch) return;
    const ids = [...this.ids];
    this.ids = new Set();
    this.done = undefined;
    this.writing = this.writing
      .then(() => this.write(ids))
      .then(() => batch.settle(), batch.settle);
  }
}

function settleable() {
  let settle: (err?: unknown) => void = () => undefined;
  const promise = new Promise<void>((resolve, reject) => {
    settle = (err) => (err === undefined ? resolve() : reject(err));
  });
  return { promise, settle };
}
