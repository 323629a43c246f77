/** Latency samples of one figure, summarised in ms (two decimals). */
export interface Latency {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The nearest-rank percentile `p` of ascending `sorted`. */
function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** p50, p99 and max of `ms` (zeros when there are no samples). */
export function latency(ms: number[]): Latency {
  const sorted = [...ms].sort((x, y) => x - y);
  const round = (v: number | undefined) => Number((v ?? 0).toFixed(2));
  return {
    samples: ms.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1]),
  };
}
