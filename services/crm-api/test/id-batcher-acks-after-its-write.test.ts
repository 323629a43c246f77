import { IdBatcher } from '../src/search-index/id-batcher';

/*
 * The lead search indexer's batcher: each add() settles with the write of the batch holding its
 * id (so an event is acked only after the write covering it), batches are written one at a
 * time, and a failed write fails its own callers only.
 */
describe('IdBatcher', () => {
  it('writes a full batch at once, the rest after the wait, one write at a time', async () => {
    const writes: string[][] = [];
    let writing = 0;
    const batcher = new IdBatcher(
      async (ids) => {
        writing += 1;
        expect(writing).toBe(1);
        writes.push(ids);
        await new Promise((resolve) => setImmediate(resolve));
        writing -= 1;
      },
      3,
      10,
    );
    const added = ['a', 'b', 'a', 'c', 'd', 'e'].map((id) => batcher.add(id));
    await Promise.all(added);
    // 'a' twice is one id; the third distinct id fills the first batch.
    expect(writes).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
  });

  it('a failed write rejects the adds of its batch only; the next batch is written', async () => {
    const batcher = new IdBatcher(
      async (ids) => {
        if (ids.includes('bad')) throw new Error('database down');
      },
      2,
      10,
    );
    const first = [batcher.add('bad'), batcher.add('x')];
    const second = batcher.add('y');
    await expect(first[0]).rejects.toThrow('database down');
    await expect(first[1]).rejects.toThrow('database down');
    await expect(second).resolves.toBeUndefined();
    await batcher.drained();
  });
});
