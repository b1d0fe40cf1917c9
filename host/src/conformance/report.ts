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
  results: CheckResult[];
  summary: ReportSummary;
  elapsedMs: number;
}

export interface ReportSummary {
  passed: number;
  failed: number;
  skipped: number;
  /** No check failed (skips do not fail a run, and are listed). */
  ok: boolean;
}

export function summarize(results: readonly CheckResult[]): ReportSummary {
  const count = (s: CheckResult['status']): number => results.filter((r) => r.status === s).length;
  const failed = count('fail');
  return { passed: count('pass'), failed, skipped: count('skip'), ok: failed === 0 };
}

// Skips whose reason goes in the RESULT column: the reader must see them at a glance, never mistake them for passes.
const LABELLED_SKIPS = new Set(['not declared', 'no backend probe']);

const PASS_DETAIL_MAX = 90;

function label(r: CheckResult): string {
  if (r.status === 'pass') return 'pass';
  if (r.status === 'fail') return 'FAIL';
  return LABELLED_SKIPS.has(r.detail) ? `skip (${r.detail})` : 'skip';
}

function detailOf(r: CheckResult): string {
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

  const { passed, failed, skipped, ok } = report.summary;
  lines.push('');
  lines.push(
    `${report.results.length} checks: ${passed} passed, ${failed} failed, ${skipped} skipped ` +
      `in ${(report.elapsedMs / 1000).toFixed(1)} s — ${ok ? 'PASSED' : 'FAILED'}`,
  );
  return `${lines.join('\n')}\n`;
}
