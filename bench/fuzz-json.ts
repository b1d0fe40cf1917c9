// Differential fuzzing of the plugin SDK's JSON reader and writer (plugin-sdk/assembly/json/) against JSON.parse and
// JSON.stringify: generated and mutated documents, same value or both refuse, no trap, and what the SDK writes parses
// back to the same value. Allowed divergences are listed in plugin-sdk/README.md ("JSON").
//
// Usage: npm run fuzz:json -- [--cases=100000] [--seed=1] [--out=bench/results/fuzz-json.json]
// Exit status 1 when there is an unexplained divergence or a trap (each printed with its case, to replay).
import { parseArgs } from 'node:util';
import { ALLOWED_DIVERGENCES } from '../test/support/json-fuzz/judge.ts';
import { runFuzz } from '../test/support/json-fuzz/run.ts';
import { loadNow, writeResults } from './lib/results.ts';
import { formatTable } from './lib/table.ts';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: new URL('./results/fuzz-json.json', import.meta.url).pathname },
  },
});
const CASES = Number(values.cases);
const SEED = Number(values.seed);
if (!Number.isInteger(CASES) || CASES < 1) throw new Error(`--cases: want a positive integer, got ${values.cases}`);
if (!Number.isInteger(SEED) || SEED < 0) throw new Error(`--seed: want an integer >= 0, got ${values.seed}`);

const loadBefore = loadNow();
const report = await runFuzz({ cases: CASES, seed: SEED });
const rows = [
  ['cases', report.cases],
  ['  mutated', report.mutated],
  ['  valid JSON (both accepted)', report.valid],
  ['divergences (unexplained)', report.divergences],
  ['allowed divergences', report.allowedDivergences],
  ...Object.entries(report.allowedByRule).map(([rule, n]) => [`  ${rule}`, n]),
  ['traps', report.traps],
  ['seed', report.seed],
  ['duration', `${(report.durationMs / 1000).toFixed(1)} s`],
].map(([k, v]) => [String(k), String(v)]);
console.log(formatTable(['fuzz:json', 'value'], rows));
for (const f of report.findings) {
  console.log(`\ncase ${f.index} (base64 ${f.document.slice(0, 160)}): ${f.problem}`);
}
writeResults(values.out, 'fuzz-json', loadBefore, {
  cases: report.cases,
  mutated: report.mutated,
  valid: report.valid,
  divergences: report.divergences,
  allowed_divergences: report.allowedDivergences,
  allowed_by_rule: report.allowedByRule,
  allow_list: ALLOWED_DIVERGENCES,
  traps: report.traps,
  seed: report.seed,
  duration_ms: report.durationMs,
  findings: report.findings,
});
if (report.divergences > 0 || report.traps > 0) process.exitCode = 1;
