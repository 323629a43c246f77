import type { Pool, PoolClient } from 'pg';

/**
 * Every text sent on the connection the pool's next checkout gets while `fn` runs (pg-pool hands
 * out the most recently released idle connection first): one entry per round trip, BEGIN folded
 * into the first statement where the platform's dialect does so. For `fn`s that hold one
 * connection at a time.
 */
export async function roundTripsOf(pool: Pool, fn: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const client = await pool.connect();
  const original = client.query;
  client.query = ((text: unknown, ...rest: unknown[]) => {
    sent.push(typeof text === 'string' ? text : String((text as { text?: string }).text));
    return (original as (...args: unknown[]) => unknown).call(client, text, ...rest);
  }) as PoolClient['query'];
  client.release();
  try {
    await fn();
  } finally {
    client.query = original;
  }
  return sent;
}
