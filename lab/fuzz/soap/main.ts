// Differential fuzzing of the plugin SDK's SOAP helpers (plugin-sdk/assembly/soap.ts) against saxes: values with
// every character XML treats specially through the request writer, read back by saxes; vim25 answers (property
// collector results, faults) written every way XML allows, some cut or spliced, read by the SDK and by saxes.
//
// Usage: npm run fuzz:soap -- [--cases=20000] [--seed=1] [--out=bench/results/fuzz-soap.json]
// Exit status 1 on a divergence (each printed, to replay).
import { parseArgs } from 'node:util';
import { formatTable, loadNow, writeResults } from '../../measure/index.ts';
import { runSoapFuzz } from './run.ts';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: new URL('../../../bench/results/fuzz-soap.json', import.meta.url).pathname },
  },
});
const cases = Number(values.cases);
const seed = Number(values.seed);
if (!Number.isInteger(cases) || cases < 1) throw new Error(`--cases: want a positive integer, got ${values.cases}`);
if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed: want an integer >= 0, got ${values.seed}`);
const loadBefore = loadNow();
const report = await runSoapFuzz({ cases, seed });
console.log(
  formatTable(
    ['fuzz-soap', ''],
    [
      ['cases (each: a value written, an answer read)', String(report.cases)],
      ['  answers saxes reads as a result', String(report.results)],
      ['  answers saxes reads as a fault', String(report.faults)],
      ['  answers no SOAP reader could read', String(report.unreadable)],
      ['divergences', String(report.divergences)],
      ['duration', `${(report.durationMs / 1000).toFixed(1)} s`],
    ],
  ),
);
for (const finding of report.findings) console.log(`\n${finding}`);
writeResults(values.out, 'fuzz-soap', loadBefore, { ...report });
if (report.divergences > 0) process.exitCode = 1;
