// The pass/fail table `wasm-ccm plugin test` prints. Failure reasons are printed in full (they are the point);
// details of passing checks are cut to keep the table readable.
import type { DescribeResponse } from '../abi/index.ts';
import type { CheckResult } from './check.ts';

export interface ConformanceReport {
  pluginPath: string;
  /** What ccm_describe said, when the plugin loaded. */
  description: DescribeResponse | undefined;
  /** Problems of the kit's own input worth fixing before shipping (a credential that reaches no allowed host). */
  warnings: string[];
  /** The fixture's reasons why the cloud cannot be probed, by probe (backends, loadBalancers). */
  notProbed: Record<string, string>;
  results: CheckResult[];
  summary: ReportSummary;
  elapsedMs: number;
}

/** FAILED: a check failed. INCOMPLETE: none failed, but a check could not run and the fixture says not why. */
export type Verdict = 'PASSED' | 'FAILED' | 'INCOMPLETE';

export interface ReportSummary {
  passed: number;
  failed: number;
  skipped: number;
  incomplete: number;
  /** PASSED only when no check failed and none is incomplete (skips are listed, with their reasons). */
  verdict: Verdict;
  ok: boolean;
}

export function summarize(results: readonly CheckResult[]): ReportSummary {
  const count = (s: CheckResult['status']): number => results.filter((r) => r.status === s).length;
  const failed = count('fail');
  const incomplete = count('incomplete');
  const verdict: Verdict = failed > 0 ? 'FAILED' : incomplete > 0 ? 'INCOMPLETE' : 'PASSED';
  return { passed: count('pass'), failed, skipped: count('skip'), incomplete, verdict, ok: verdict === 'PASSED' };
}

// Skips whose reason goes in the RESULT column: the reader must see them at a glance, never mistake them for passes.
const LABELLED_SKIPS = new Set(['not declared']);
/** The prefix of a skip the fixture excuses (`{unavailable: reason}`): labelled, with the vendor's reason. */
export const NOT_PROBED = 'not probed: ';

const PASS_DETAIL_MAX = 90;

function label(r: CheckResult): string {
  if (r.status === 'pass') return 'pass';
  if (r.status === 'fail') return 'FAIL';
  if (r.status === 'incomplete') return 'INCOMPLETE';
  if (r.detail.startsWith(NOT_PROBED)) return 'skip (not probed)';
  return LABELLED_SKIPS.has(r.detail) ? `skip (${r.detail})` : 'skip';
}

function detailOf(r: CheckResult): string {
  if (r.status === 'skip' && r.detail.startsWith(NOT_PROBED)) return r.detail.slice(NOT_PROBED.length);
  if (r.status === 'skip') return LABELLED_SKIPS.has(r.detail) ? '' : `(${r.detail})`;
  if (r.status === 'pass' && r.detail.length > PASS_DETAIL_MAX) return `${r.detail.slice(0, PASS_DETAIL_MAX - 1)}…`;
  return r.detail;
}

export function formatReport(report: ConformanceReport): string {
  const lines: string[] = [];
  const d = report.description;
  lines.push(
    d
      ? `wasm-ccm plugin test: ${d.providerName} ${d.version} (ABI ${d.abi}) from ${report.pluginPath}`
      : `wasm-ccm plugin test: ${report.pluginPath}`,
  );
  if (d) lines.push(`declared capabilities: ${d.capabilities.join(', ') || 'none'}`);
  for (const w of report.warnings) lines.push(`WARNING: ${w}`);
  lines.push('');

  const rows = report.results.map((r) => [label(r), `${r.group}: ${r.title}`, detailOf(r)] as const);
  const w0 = Math.max('RESULT'.length, ...rows.map((r) => r[0].length));
  const w1 = Math.max('CHECK'.length, ...rows.map((r) => r[1].length));
  const line = (a: string, b: string, c: string): string => `${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`.trimEnd();
  lines.push(line('RESULT', 'CHECK', 'DETAIL'));
  for (const [a, b, c] of rows) lines.push(line(a, b, c));

  const { passed, failed, skipped, incomplete, verdict } = report.summary;
  lines.push('');
  for (const [what, reason] of Object.entries(report.notProbed)) lines.push(`not probed (${what}): ${reason}`);
  lines.push(
    `${report.results.length} checks: ${passed} passed, ${failed} failed, ${skipped} skipped` +
      `${incomplete > 0 ? `, ${incomplete} incomplete` : ''} in ${(report.elapsedMs / 1000).toFixed(1)} s — ${verdict}`,
  );
  if (verdict === 'INCOMPLETE') {
    lines.push(
      'INCOMPLETE: the checks above marked INCOMPLETE could not look at the cloud. Give the fixture the probe they ' +
        'name, or state why your cloud cannot be probed ({unavailable: <reason>} in its place).',
    );
  }
  return `${lines.join('\n')}\n`;
}
