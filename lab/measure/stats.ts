// Latency sampling for benchmarks: warm up, time each call with the high-resolution clock, report percentiles.

export interface Percentiles {
  p50_us: number;
  p99_us: number;
  max_us: number;
  samples: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/** The middle value (of an even count, the lower of the two middle ones): percentile 50 of a sorted copy. */
export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export function summarize(samplesUs: number[]): Percentiles {
  const sorted = [...samplesUs].sort((a, b) => a - b);
  const round = (v: number): number => Math.round(v * 10) / 10;
  return {
    p50_us: round(percentile(sorted, 50)),
    p99_us: round(percentile(sorted, 99)),
    max_us: round(sorted.at(-1) ?? Number.NaN),
    samples: sorted.length,
  };
}

/** Runs `fn` `warmup` times untimed, then `iterations` times timed; returns microseconds per call. */
export async function sample(fn: () => Promise<unknown>, iterations: number, warmup: number): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out = new Array<number>(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await fn();
    out[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  return out;
}
