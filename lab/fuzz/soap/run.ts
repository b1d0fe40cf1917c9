// Runs the SOAP fuzzer: batches of writer values and of answers through the SDK's test module
// (plugin-sdk/tests/assembly/soap.ts, built -O3 as plugins are), each outcome compared with saxes' reading.
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { compileAssemblyScript, SDK_DIR } from '../../../plugin-sdk/tools/compile.ts';
import { Random } from '../json/index.ts';
import { load } from '../../plugins/index.ts';
import { randomAnswer, randomValue } from './generate.ts';
import { type Answer, expectedAnswer, judgeWritten } from './judge.ts';

export interface SoapFuzzReport {
  cases: number;
  seed: number;
  /** Answers saxes reads as a RetrievePropertiesEx result, as a fault, or not at all (cut, spliced). */
  results: number;
  faults: number;
  unreadable: number;
  divergences: number;
  durationMs: number;
  /** The first few divergences, to replay (the case and what differed). */
  findings: string[];
}

const BATCH = 500;
const MAX_FINDINGS = 20;

export async function compileSoapFuzzModule(optimize = true): Promise<Uint8Array> {
  const entry = join(SDK_DIR, 'tests', 'assembly', 'soap.ts');
  const cacheDir = join(SDK_DIR, 'tests', 'build', optimize ? 'fuzz' : 'debug');
  return (await compileAssemblyScript(entry, { optimize, cacheDir })).wasm;
}

/** `cases` writer values and `cases` answers, deterministic in `seed`. */
export async function runSoapFuzz(options: {
  cases: number;
  seed: number;
  optimize?: boolean;
}): Promise<SoapFuzzReport> {
  const module = await load(await compileSoapFuzzModule(options.optimize ?? true));
  const started = performance.now();
  const report: SoapFuzzReport = {
    ...options,
    results: 0,
    faults: 0,
    unreadable: 0,
    divergences: 0,
    durationMs: 0,
    findings: [],
  };
  delete (report as { optimize?: boolean }).optimize;
  const note = (finding: string) => {
    report.divergences++;
    if (report.findings.length < MAX_FINDINGS) report.findings.push(finding);
  };
  try {
    for (let first = 0; first < options.cases; first += BATCH) {
      const rng = new Random((options.seed ^ Math.imul(first + 1, 0x85ebca6b)) >>> 0);
      const n = Math.min(BATCH, options.cases - first);
      const values = Array.from({ length: n }, () => randomValue(rng));
      const written = (await module.json('soap_write', { values })) as { envelopes: string[] };
      values.forEach((v, i) => {
        const problem = judgeWritten(v, i, written.envelopes[i]!);
        if (problem !== null) note(`write case ${first + i}: ${problem}`);
      });
      const docs = Array.from({ length: n }, () => randomAnswer(rng));
      const read = (await module.json('soap_read', { docs })) as { answers: Answer[] };
      docs.forEach((doc, i) => {
        const want = expectedAnswer(doc);
        if (want.kind === 'result') report.results++;
        else if (want.kind === 'fault') report.faults++;
        else report.unreadable++;
        if (!isDeepStrictEqual(read.answers[i], want)) {
          note(
            `read case ${first + i}: ${JSON.stringify(doc)}: SDK ${JSON.stringify(read.answers[i])}, saxes ${JSON.stringify(want)}`,
          );
        }
      });
    }
  } finally {
    await module.plugin.close();
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}
