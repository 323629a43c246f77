import autocannon from 'autocannon';

/** The knobs of a run (environment variables, all optional). */
export const LOAD = {
  connections: Number(process.env.CONNECTIONS ?? 50),
  durationSeconds: Number(process.env.DURATION ?? 10),
  warmUpSeconds: Number(process.env.WARM_UP ?? 3),
};

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  notOk: number;
  errors: number;
}

/** One autocannon run: `requests` may rewrite each request (fresh signatures, bodies). */
export type LoadTarget = Pick<
  autocannon.Options,
  'url' | 'method' | 'headers' | 'body' | 'requests'
>;

async function cannon(
  target: LoadTarget,
  seconds: number,
  connections: number,
): Promise<LoadResult> {
  const result = await autocannon({ ...target, connections, duration: seconds, timeout: 60 });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    notOk: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** A warm-up (discarded), then the measured run; `measuring` runs between the two. */
export async function measure(
  label: string,
  target: LoadTarget,
  connections = LOAD.connections,
  measuring?: () => void,
): Promise<LoadResult> {
  await cannon(target, LOAD.warmUpSeconds, connections);
  measuring?.();
  const result = await cannon(target, LOAD.durationSeconds, connections);
  process.stderr.write(
    `  ${label}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.notOk}, errors ${result.errors}\n`,
  );
  return result;
}

/** A and B alternated twice (A, B, A, B), so drift of a shared machine falls on both. */
export async function alternate<T>(
  a: () => Promise<T>,
  b: () => Promise<T>,
): Promise<{ a: T[]; b: T[] }> {
  const runs = { a: [] as T[], b: [] as T[] };
  for (let round = 0; round < 2; round++) {
    runs.a.push(await a());
    runs.b.push(await b());
  }
  return runs;
}

export const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
