// The command line of the differential fuzzers (fuzz:json, fuzz:xml): --cases, --seed, --out; a table of the report,
// its findings to replay, and bench/results/<name>.json. Exit status 1 when there is an unexplained divergence or a
// trap.
import { parseArgs } from 'node:util';
import type { DifferentialReport } from './differential.ts';
import { loadNow, writeResults, formatTable } from '../measure/index.ts';

export interface FuzzArgs {
  cases: number;
  seed: number;
  out: string;
  loadBefore: number;
}

export function fuzzArgs(name: string): FuzzArgs {
  const { values } = parseArgs({
    options: {
      cases: { type: 'string', default: '100000' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string', default: new URL(`../../bench/results/${name}.json`, import.meta.url).pathname },
    },
  });
  const cases = Number(values.cases);
  const seed = Number(values.seed);
  if (!Number.isInteger(cases) || cases < 1) throw new Error(`--cases: want a positive integer, got ${values.cases}`);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed: want an integer >= 0, got ${values.seed}`);
  return { cases, seed, out: values.out, loadBefore: loadNow() };
}

/** Prints the report, writes its results file, and sets the exit status. `validLabel` names the accepted count. */
export function reportFuzz<Rule extends string>(
  name: string,
  args: FuzzArgs,
  report: DifferentialReport<Rule>,
  validLabel: string,
  allowList: Record<Rule, string>,
): void {
  const rows = [
    ['cases', report.cases],
    ['  mutated', report.mutated],
    [`  ${validLabel}`, report.valid],
    ['divergences (unexplained)', report.divergences],
    ['allowed divergences', report.allowedDivergences],
    ...Object.entries(report.allowedByRule).map(([rule, n]) => [`  ${rule}`, n]),
    ['traps', report.traps],
    ['seed', report.seed],
    ['duration', `${(report.durationMs / 1000).toFixed(1)} s`],
  ].map(([k, v]) => [String(k), String(v)]);
  console.log(formatTable([name, 'value'], rows));
  for (const f of report.findings) {
    console.log(`\ncase ${f.index} (base64 ${f.document.slice(0, 160)}): ${f.problem}`);
  }
  writeResults(args.out, name, args.loadBefore, {
    cases: report.cases,
    mutated: report.mutated,
    valid: report.valid,
    divergences: report.divergences,
    allowed_divergences: report.allowedDivergences,
    allowed_by_rule: report.allowedByRule,
    allow_list: allowList,
    traps: report.traps,
    seed: report.seed,
    duration_ms: report.durationMs,
    findings: report.findings,
  });
  if (report.divergences > 0 || report.traps > 0) process.exitCode = 1;
}
