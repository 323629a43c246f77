import { GroupCommit, type Settled } from '../src/ledger/group-commit';

/** A runGroup whose groups finish when the test says so. */
function controlledRuns() {
  const groups: { items: number[]; finish(answers?: Settled<string>[]): void }[] = [];
  const runGroup = (items: number[]) =>
    new Promise<Settled<string>[]>((resolve) => {
      groups.push({
        items,
        finish: (answers = items.map((item) => ({ value: `done ${item}` }))) => resolve(answers),
      });
    });
  return { groups, runGroup };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

it('an item arriving when nothing is running goes alone, at once', async () => {
  const { groups, runGroup } = controlledRuns();
  const commit = new GroupCommit(runGroup, { inFlight: 1, maxItems: 10 });
  const answer = commit.submit(1);
  expect(groups.map((g) => g.items)).toEqual([[1]]);
  groups[0].finish();
  await expect(answer).resolves.toBe('done 1');
});

it('items arriving while groups run wait and go together, bounded by count and weight', async () => {
  const { groups, runGroup } = controlledRuns();
  const commit = new GroupCommit(runGroup, {
    inFlight: 1,
    maxItems: 3,
    maxWeight: 10,
    weightOf: (item: number) => item,
  });
  const answers = [1, 2, 3, 4, 5, 6].map((item) => commit.submit(item));
  expect(groups.map((g) => g.items)).toEqual([[1]]);
  groups[0].finish();
  await tick();
  // 2 + 3 + 4 is within 3 items and weight 10 ... 5 would make 14.
  expect(groups.map((g) => g.items)).toEqual([[1], [2, 3, 4]]);
  groups[1].finish();
  await tick();
  expect(groups.map((g) => g.items)).toEqual([[1], [2, 3, 4], [5]]);
  groups[2].finish();
  await tick();
  groups[3].finish();
  await expect(Promise.all(answers)).resolves.toEqual([1, 2, 3, 4, 5, 6].map((i) => `done ${i}`));
});

it('an item heavier than the weight bound still goes, alone', async () => {
  const { groups, runGroup } = controlledRuns();
  const commit = new GroupCommit(runGroup, {
    inFlight: 2,
    maxItems: 5,
    maxWeight: 3,
    weightOf: (i: number) => i,
  });
  void commit.submit(9);
  void commit.submit(8);
  expect(groups.map((g) => g.items)).toEqual([[9], [8]]);
});

it("each submitter gets its own answer: one item's error is not the others'", async () => {
  const { groups, runGroup } = controlledRuns();
  const commit = new GroupCommit(runGroup, { inFlight: 1, maxItems: 10 });
  void commit.submit(0).catch(() => undefined);
  const [a, b] = [commit.submit(1), commit.submit(2)];
  groups[0].finish();
  await tick();
  groups[1].finish([{ value: 'stored' }, { error: new Error('not stored') }]);
  await expect(a).resolves.toBe('stored');
  await expect(b).rejects.toThrow('not stored');
});

it('a group that fails as a whole fails each of its items, and the next group still runs', async () => {
  const commit = new GroupCommit<number, string>(
    async (items) => {
      if (items.includes(1)) throw new Error('group failed');
      return items.map((item) => ({ value: `ok ${item}` }));
    },
    { inFlight: 1, maxItems: 10 },
  );
  await expect(commit.submit(1)).rejects.toThrow('group failed');
  await expect(commit.submit(2)).resolves.toBe('ok 2');
});
