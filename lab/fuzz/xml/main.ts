// Differential fuzzing of the plugin SDK's XML reader (plugin-sdk/assembly/xml/) against saxes: documents shaped like
// moto's EC2 and ELBv2 answers, free-form documents and their mutations; the same events or both refuse, no trap.
// Allowed divergences are listed in plugin-sdk/assembly/xml/README.md. Then the time dimension: adversarial documents
// (many attributes, references, text runs, children, deep nests, long names, namespace declarations, line ends) at
// sizes growing 4x a step, each step at most --max-ratio times the one before.
//
// Usage: npm run fuzz:xml -- [--cases=100000] [--seed=1] [--out=bench/results/fuzz-xml.json]
// Exit status 1 when there is an unexplained divergence, a trap or a step that grew faster than linear (each printed,
// to replay). The time results go to bench/results/fuzz-xml-time.json (a summary per shape) and
// bench/results/raw/fuzz-xml-time.json (every series, not committed).
import { XML_ALLOWED_DIVERGENCES } from './judge.ts';
import { runXmlFuzz } from './run.ts';
import { runXmlTimeFuzz, type TimingOptions, timingSummary } from './timing.ts';
import { fuzzArgs, reportFuzz } from '../cli.ts';
import { loadNow, rawResultsPath, writeResults, formatTable } from '../../measure/index.ts';

const args = fuzzArgs('fuzz-xml');
const report = await runXmlFuzz({ cases: args.cases, seed: args.seed });
reportFuzz('fuzz-xml', args, report, 'well-formed (both accepted)', XML_ALLOWED_DIVERGENCES);

// 64 KB to 4 MB: the largest is about what the adversary round sent, the smallest still well above the floor.
const timing: TimingOptions = { seeds: 3, seed: args.seed, firstBytes: 64 * 1024, steps: 4, floorMs: 10, maxRatio: 6 };
const loadBefore = loadNow();
const time = await runXmlTimeFuzz(timing);
const rows = time.series.map((s) => [
  `${s.shape} (seed ${s.seed})`,
  s.bytes.map((b) => `${Math.round(b / 1024)} KB`).join(' / '),
  s.ms.map((ms) => ms.toFixed(1)).join(' / '),
]);
console.log(`\n${formatTable(['time fuzz', 'sizes', 'ms (fastest of 3)'], rows)}`);
console.log(`worst step ratio per shape (4x the size; linear is 4, the limit ${timing.maxRatio}):`, time.worstRatio);
for (const finding of time.findings) console.log(`\ntime: ${finding}`);
const timeOut = args.out.replace(/\.json$/, '-time.json');
writeResults(rawResultsPath(timeOut), 'fuzz-xml-time', loadBefore, {
  options: timing,
  worst_ratio: time.worstRatio,
  findings: time.findings,
  series: time.series,
  duration_ms: time.durationMs,
});
const summary = timingSummary(time);
writeResults(timeOut, 'fuzz-xml-time', loadBefore, {
  options: timing,
  worst_ratio: summary.worstRatio,
  largest: summary.largest,
  findings: summary.findings,
  duration_ms: summary.durationMs,
});
if (time.findings.length > 0) process.exitCode = 1;
