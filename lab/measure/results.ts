// Writes a results file (bench/results/<name>.json) in the shape every benchmark and fuzzer uses: what ran, when, on what, under which load.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { basename, dirname, join } from 'node:path';

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
  // --out may name a directory not made yet: a long run must not end without its results.
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote ${out}`);
}

/**
 * Where the raw run behind a results file goes: `raw/<name>.json` beside it (every sample and event, gitignored),
 * while the results file itself holds the summary the tables and bench/README.md quote. Creates the folder.
 */
export function rawResultsPath(out: string): string {
  const dir = join(dirname(out), 'raw');
  mkdirSync(dir, { recursive: true });
  return join(dir, basename(out));
}
