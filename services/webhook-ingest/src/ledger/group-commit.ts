/** One item's answer from a group run: its value, or the error that is its alone. */
export type Settled<O> = { value: O } | { error: unknown };

export interface GroupCommitOptions<I> {
  /** Groups running at once; an item arriving while all are busy waits for the next group. */
  inFlight: number;
  /** Largest number of items in one group. */
  maxItems: number;
  /** Largest total weight of one group (a group always takes at least one item). */
  maxWeight?: number;
  weightOf?(item: I): number;
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/**
 * Group commit: items submitted while earlier groups are being written wait and go together in
 * the next group, so under load one transaction carries many of them, and when idle an item goes
 * alone at once (no timer, no added latency). Each submitter still gets its own answer.
 */
export class GroupCommit<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private running = 0;

  constructor(
    private readonly runGroup: (items: I[]) => Promise<Settled<O>[]>,
    private readonly options: GroupCommitOptions<I>,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.options.inFlight && this.waiting.length > 0) {
      const group = this.takeGroup();
      this.running += 1;
      this.runGroup(group.map((entry) => entry.item))
        .then(
          (answers) =>
            group.forEach((entry, i) => {
              const answer = answers[i];
              if (answer && 'value' in answer) entry.resolve(answer.value);
              else entry.reject(answer ? answer.error : new Error('group commit: no answer'));
            }),
          (error: unknown) => group.forEach((entry) => entry.reject(error)),
        )
        .finally(() => {
          this.running -= 1;
          this.pump();
        });
    }
  }

  private takeGroup(): Waiting<I, O>[] {
    const { maxItems, maxWeight = Infinity, weightOf = () => 1 } = this.options;
    let count = 0;
    let weight = 0;
    while (count < this.waiting.length && count < maxItems) {
      const next = weightOf(this.waiting[count].item);
      if (count > 0 && weight + next > maxWeight) break;
      weight += next;
      count += 1;
    }
    return this.waiting.splice(0, count);
  }
}
