// Differential fuzzing of the plugin SDK's XML reader (plugin-sdk/assembly/xml/) against saxes: documents shaped like
// moto's EC2 and ELBv2 answers, free-form documents and their mutations; the same events or both refuse, no trap.
// Allowed divergences are listed in plugin-sdk/README.md ("XML").
//
// Usage: npm run fuzz:xml -- [--cases=100000] [--seed=1] [--out=bench/results/fuzz-xml.json]
// Exit status 1 when there is an unexplained divergence or a trap (each printed with its case, to replay).
import { parseArgs } from 'node:util';
import { XML_ALLOWED_DIVERGENCES } from '../test/support/xml-fuzz/judge.ts';
import { runXmlFuzz } from '../test/support/xml-fuzz/run.ts';
import { loadNow, writeResults } from './lib/results.ts';
import { formatTable } from './lib/table.ts';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: new URL('./results/fuzz-xml.json', import.meta.url).pathname },
  },
});
const CASES = Number(values.cases);
const SEED = Number(values.seed);
if (!Number.isInteger(CASES) || CASES < 1) throw new Error(`--cases: want a positive integer, got ${values.cases}`);
if (!Number.isInteger(SEED) || SEED < 0) throw new Error(`--seed: want an integer >= 0, got ${values.seed}`);

const loadBefore = loadNow();
const report = await runXmlFuzz({ cases: CASES, seed: SEED });
const rows = [
  ['cases', report.cases],
  ['  mutated', report.mutated],
  ['  well-formed (both accepted)', report.valid],
  ['divergences (unexplained)', report.divergences],
  ['allowed divergences', report.allowedDivergences],
  ...Object.entries(report.allowedByRule).map(([rule, n]) => [`  ${rule}`, n]),
  ['traps', report.traps],
  ['seed', report.seed],
  ['duration', `${(report.durationMs / 1000).toFixed(1)} s`],
].map(([k, v]) => [String(k), String(v)]);
console.log(formatTable(['fuzz:xml', 'value'], rows));
for (const f of report.findings) {
  console.log(`\ncase ${f.index} (base64 ${f.document.slice(0, 160)}): ${f.problem}`);
}
writeResults(values.out, 'fuzz-xml', loadBefore, {
  cases: report.cases,
  mutated: report.mutated,
  valid: report.valid,
  divergences: report.divergences,
  allowed_divergences: report.allowedDivergences,
  allowed_by_rule: report.allowedByRule,
  allow_list: XML_ALLOWED_DIVERGENCES,
  traps: report.traps,
  seed: report.seed,
  duration_ms: report.durationMs,
  findings: report.findings,
});
if (report.divergences > 0 || report.traps > 0) process.exitCode = 1;
