// Differential fuzzing of the host's code reader (host/src/plugin/module/code-reader.ts, which finds the tail calls the
// instruction policy refuses) against V8 and binaryen: random modules from binaryen's generator and mutants of their
// code sections; every module V8 accepts is read to its end, tail calls found exactly where binaryen sees them.
//
// Usage: npm run fuzz:wasm-code -- [--bases=20] [--mutants=500] [--seed=1] [--out=bench/results/fuzz-wasm-code.json]
// Exit status 1 when there is a finding (each printed with the module it came from; replay with the same seed).
import { parseArgs } from 'node:util';
import { runCodeFuzz } from './run.ts';
import { loadNow, writeResults, formatTable } from '../../measure/index.ts';

const { values } = parseArgs({
  options: {
    bases: { type: 'string', default: '20' },
    mutants: { type: 'string', default: '500' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: new URL('../../../bench/results/fuzz-wasm-code.json', import.meta.url).pathname },
  },
});
const numbers = { bases: Number(values.bases), mutants: Number(values.mutants), seed: Number(values.seed) };
for (const [name, value] of Object.entries(numbers)) {
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name}: want an integer >= 0, got ${value}`);
}
const loadBefore = loadNow();
const report = await runCodeFuzz(numbers);
const rows = [
  ['modules read', report.modules],
  ['  valid mutants', report.mutantsValid],
  ['  refused by design (GC types or instructions)', report.allowedRefusals],
  ['  with tail calls', report.withTailCalls],
  ['findings', report.findings.length],
  ['seed', numbers.seed],
  ['duration', `${(report.durationMs / 1000).toFixed(1)} s`],
].map(([k, v]) => [String(k), String(v)]);
console.log(formatTable(['fuzz-wasm-code', 'value'], rows));
for (const f of report.findings) console.log(`\n${f.module}: ${f.problem}`);
writeResults(values.out, 'fuzz-wasm-code', loadBefore, {
  ...numbers,
  modules: report.modules,
  mutants_valid: report.mutantsValid,
  allowed_refusals: report.allowedRefusals,
  with_tail_calls: report.withTailCalls,
  findings: report.findings,
  duration_s: Math.round(report.durationMs / 100) / 10,
});
if (report.findings.length > 0) process.exitCode = 1;
