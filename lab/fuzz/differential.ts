// What the SDK's differential fuzzers (JSON, XML) share: cases made deterministically from (seed, index), run in
// batches through a test module, each outcome judged against a reference parser and counted into one report shape.
import { load, type TestPlugin } from '../plugins/index.ts';

/** What the SDK's test module reports for one document. */
export interface SdkOutcome {
  /** JsonValue.parseBytes accepted the document. */
  treeAccepted: boolean;
  /** JsonReader.skip() + finish() accepted it. */
  skipAccepted: boolean;
  /** JsonReader.readMapBytes() + mapOfJson() gave what readMap() gives: the same map, or the same problem (JSON only). */
  lazyMapAgrees: boolean;
  /** What JsonValue.write produced, or JsonValue.lastError(). */
  text: string;
}

export interface FuzzFinding {
  index: number;
  /** The document, base64 (it may not be valid UTF-8). */
  document: string;
  problem: string;
}

export type DifferentialVerdict<Rule extends string> =
  { kind: 'agree' } | { kind: 'allowed'; rule: Rule } | { kind: 'divergence'; problem: string };

export interface FuzzCase {
  doc: Uint8Array;
  mutated: boolean;
}

export interface DifferentialReport<Rule extends string> {
  cases: number;
  seed: number;
  /** Cases that were mutated (the rest are valid generated documents). */
  mutated: number;
  /** Cases both the SDK and the reference accepted. */
  valid: number;
  divergences: number;
  allowedDivergences: number;
  allowedByRule: Partial<Record<Rule, number>>;
  traps: number;
  durationMs: number;
  /** The first few divergences and traps, to replay. */
  findings: FuzzFinding[];
}

export interface DifferentialRun<Rule extends string> {
  wasm: Uint8Array;
  cases: number;
  seed: number;
  /** Cases per call into the module. */
  batch?: number;
  makeCase(seed: number, index: number): FuzzCase;
  /** The verdict on one outcome, and whether the SDK accepted the document. */
  judge(c: FuzzCase, outcome: SdkOutcome): { verdict: DifferentialVerdict<Rule>; accepted: boolean };
}

const MAX_FINDINGS = 20;

export const AGREE = { kind: 'agree' } as const;

export function divergence(problem: string): { kind: 'divergence'; problem: string } {
  return { kind: 'divergence', problem };
}

/** "accepts" or "refuses", for messages. */
export function word(accepted: boolean): string {
  return accepted ? 'accepts' : 'refuses';
}

export async function runDifferential<Rule extends string>(
  run: DifferentialRun<Rule>,
): Promise<DifferentialReport<Rule>> {
  const started = performance.now(); // the cases only, not the build
  const report: DifferentialReport<Rule> = {
    cases: run.cases,
    seed: run.seed,
    mutated: 0,
    valid: 0,
    divergences: 0,
    allowedDivergences: 0,
    allowedByRule: {},
    traps: 0,
    durationMs: 0,
    findings: [],
  };
  const runner = new BatchRunner(run.wasm);
  const batch = run.batch ?? 500;
  try {
    for (let first = 0; first < run.cases; first += batch) {
      const cases: FuzzCase[] = [];
      for (let i = first; i < Math.min(first + batch, run.cases); i++) cases.push(run.makeCase(run.seed, i));
      const outcomes = await runner.outcomes(cases.map((c) => c.doc));
      cases.forEach((c, k) => record(report, first + k, c, outcomes[k] ?? new Error('no outcome'), run));
    }
  } finally {
    await runner.close();
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

function record<Rule extends string>(
  report: DifferentialReport<Rule>,
  index: number,
  c: FuzzCase,
  outcome: SdkOutcome | Error,
  run: DifferentialRun<Rule>,
): void {
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
  const { verdict, accepted } = run.judge(c, outcome);
  if (verdict.kind === 'divergence') {
    report.divergences++;
    finding(verdict.problem);
    return;
  }
  if (verdict.kind === 'allowed') {
    report.allowedDivergences++;
    report.allowedByRule[verdict.rule] = (report.allowedByRule[verdict.rule] ?? 0) + 1;
  }
  if (accepted) report.valid++;
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
    out.push({
      treeAccepted: (flags & 1) !== 0,
      skipAccepted: (flags & 2) !== 0,
      lazyMapAgrees: (flags & 4) !== 0,
      text,
    });
    at += 5 + n;
  }
  return out;
}
