// Writes a results file (bench/results/<name>.json) in the shape every benchmark and fuzzer uses: what ran, when, on what, under which load.
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** Call before measuring; pass the result to writeResults so the file records the load before and after. */
export function loadNow(): number {
  return loadavg()[0] ?? 0;
}

export function writeResults(
  out: string,
  benchmark: string,
  loadBefore: number,
  fields: Record<string, unknown>,
): void {
  const doc = {
    benchmark,
    date: new Date().toISOString(),
    machine: { cpus: availableParallelism(), node: process.version },
    load_average_1m: { before: loadBefore, after: loadNow() },
    ...fields,
  };
  writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote ${out}`);
}
