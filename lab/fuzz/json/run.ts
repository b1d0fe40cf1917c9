// Runs the JSON fuzzer: generated and mutated documents through the SDK's JSON (plugin-sdk/tests/assembly/
// json-fuzz.ts, built -O3 as plugins are and run under Extism as the SDK's tests run modules) against the
// platform's JSON, in batches. A batch that traps is replayed one case at a time on fresh instances to name the
// case; a trap is any failure of the call, which for the SDK's JSON is a bug (its errors are values, not traps).
import { join } from 'node:path';
import { compileAssemblyScript, SDK_DIR } from '../../../plugin-sdk/tools/compile.ts';
import { type DifferentialReport, runDifferential } from '../differential.ts';
import { generateDocument } from './generate.ts';
import { type AllowedDivergence, judge } from './judge.ts';
import { mutate } from './mutate.ts';
import { Random } from './random.ts';

export interface FuzzOptions {
  cases: number;
  seed: number;
  /** Cases per call into the module. */
  batch?: number;
}

export type FuzzReport = DifferentialReport<AllowedDivergence>;

const encoder = new TextEncoder();

export async function compileFuzzModule(): Promise<Uint8Array> {
  const entry = join(SDK_DIR, 'tests', 'assembly', 'json-fuzz.ts');
  return (await compileAssemblyScript(entry, { cacheDir: join(SDK_DIR, 'tests', 'build', 'fuzz') })).wasm;
}

/** The case `index` of a run: deterministic in (seed, index), so one case can be rebuilt without the others. */
export function fuzzCase(seed: number, index: number): { doc: Uint8Array; mutated: boolean } {
  const rng = new Random((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const doc = encoder.encode(generateDocument(rng));
  return rng.chance(0.6) ? { doc: mutate(rng, doc), mutated: true } : { doc, mutated: false };
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  return runDifferential({
    wasm: await compileFuzzModule(),
    ...options,
    makeCase: fuzzCase,
    judge: (c, outcome) => ({ verdict: judge(c.doc, outcome), accepted: outcome.treeAccepted }),
  });
}

export { BatchRunner, type FuzzFinding } from '../differential.ts';
