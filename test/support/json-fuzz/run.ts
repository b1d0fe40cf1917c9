// Runs the JSON fuzzer: generated and mutated documents through the SDK's JSON (plugin-sdk/tests/assembly/
// json-fuzz.ts, built -O3 as plugins are and run under Extism as the SDK's tests run modules) against the
// platform's JSON, in batches. A batch that traps is replayed one case at a time on fresh instances to name the
// case; a trap is any failure of the call, which for the SDK's JSON is a bug (its errors are values, not traps).
import { join } from 'node:path';
import { compileAssemblyScript, SDK_DIR } from '../../../plugin-sdk/tools/compile.ts';
import { load, type TestPlugin } from '../../unit/sdk/harness.ts';
import { generateDocument } from './generate.ts';
import { type AllowedDivergence, judge, type SdkOutcome } from './judge.ts';
import { mutate } from './mutate.ts';
import { Random } from './random.ts';

export interface FuzzOptions {
  cases: number;
  seed: number;
  /** Cases per call into the module. */
  batch?: number;
}

export interface FuzzFinding {
  index: number;
  /** The document, base64 (it may not be valid UTF-8). */
  document: string;
  problem: string;
}

export interface FuzzReport {
  cases: number;
  seed: number;
  /** Cases that were mutated (the rest are valid generated documents). */
  mutated: number;
  /** Cases JSON.parse accepted. */
  valid: number;
  divergences: number;
  allowedDivergences: number;
  allowedByRule: Partial<Record<AllowedDivergence, number>>;
  traps: number;
  durationMs: number;
  /** The first few divergences and traps, to replay. */
  findings: FuzzFinding[];
}

const MAX_FINDINGS = 20;
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
  const wasm = await compileFuzzModule();
  const started = performance.now(); // the cases only, not the build
  const report: FuzzReport = {
    cases: options.cases,
    seed: options.seed,
    mutated: 0,
    valid: 0,
    divergences: 0,
    allowedDivergences: 0,
    allowedByRule: {},
    traps: 0,
    durationMs: 0,
    findings: [],
  };
  const runner = new BatchRunner(wasm);
  const batch = options.batch ?? 500;
  try {
    for (let first = 0; first < options.cases; first += batch) {
      const cases = [];
      for (let i = first; i < Math.min(first + batch, options.cases); i++) cases.push(fuzzCase(options.seed, i));
      const outcomes = await runner.outcomes(cases.map((c) => c.doc));
      cases.forEach((c, k) => record(report, first + k, c, outcomes[k] as SdkOutcome | Error));
    }
  } finally {
    await runner.close();
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

function record(
  report: FuzzReport,
  index: number,
  c: { doc: Uint8Array; mutated: boolean },
  outcome: SdkOutcome | Error,
) {
  if (c.mutated) report.mutated++;
  const finding = (problem: string) => {
    if (report.findings.length < MAX_FINDINGS) {
      report.findings.push({ index, document: Buffer.from(c.doc).toString('base64'), problem });
    }
  };
  if (outcome instanceof Error) {
    report.traps++;
    finding(`trap: ${outcome.message}`);
    return;
  }
  const verdict = judge(c.doc, outcome);
  if (verdict.kind === 'divergence') {
    report.divergences++;
    finding(verdict.problem);
    return;
  }
  if (verdict.kind === 'allowed') {
    report.allowedDivergences++;
    report.allowedByRule[verdict.rule] = (report.allowedByRule[verdict.rule] ?? 0) + 1;
  }
  if (outcome.treeAccepted) report.valid++;
}

/** One module instance, replaced after a trap (its runtime state can no longer be trusted). */
export class BatchRunner {
  readonly #wasm: Uint8Array;
  #plugin: Promise<TestPlugin> | undefined;

  constructor(wasm: Uint8Array) {
    this.#wasm = wasm;
  }

  async outcomes(docs: Uint8Array[]): Promise<Array<SdkOutcome | Error>> {
    try {
      return await this.#call(docs);
    } catch {
      await this.#discard();
      const out: Array<SdkOutcome | Error> = [];
      for (const doc of docs) {
        try {
          out.push(...(await this.#call([doc])));
        } catch (err) {
          await this.#discard();
          out.push(err instanceof Error ? err : new Error(String(err)));
        }
      }
      return out;
    }
  }

  async #call(docs: Uint8Array[]): Promise<SdkOutcome[]> {
    this.#plugin ??= compileAndLoad(this.#wasm);
    const plugin = await this.#plugin;
    let output: Uint8Array;
    try {
      output = (await plugin.plugin.call('fuzz_batch', frameCases(docs)))?.bytes() ?? new Uint8Array(0);
    } finally {
      await plugin.plugin.reset();
    }
    const outcomes = parseOutcomes(Buffer.from(output.buffer, output.byteOffset, output.byteLength));
    if (outcomes.length !== docs.length) throw new Error(`${outcomes.length} outcomes for ${docs.length} cases`);
    return outcomes;
  }

  async #discard(): Promise<void> {
    const plugin = this.#plugin;
    this.#plugin = undefined;
    await (await plugin?.catch(() => undefined))?.plugin.close();
  }

  close(): Promise<void> {
    return this.#discard();
  }
}

function compileAndLoad(wasm: Uint8Array): Promise<TestPlugin> {
  return load(wasm);
}

function frameCases(docs: Uint8Array[]): Uint8Array {
  const out = Buffer.alloc(docs.reduce((n, d) => n + 4 + d.byteLength, 0));
  let at = 0;
  for (const doc of docs) {
    out.writeUInt32LE(doc.byteLength, at);
    out.set(doc, at + 4);
    at += 4 + doc.byteLength;
  }
  return out;
}

function parseOutcomes(bytes: Buffer): SdkOutcome[] {
  const out: SdkOutcome[] = [];
  let at = 0;
  while (at + 5 <= bytes.length) {
    const flags = bytes[at] as number;
    const n = bytes.readUInt32LE(at + 1);
    const text = bytes.toString('utf8', at + 5, at + 5 + n);
    out.push({ treeAccepted: (flags & 1) !== 0, skipAccepted: (flags & 2) !== 0, text });
    at += 5 + n;
  }
  return out;
}
