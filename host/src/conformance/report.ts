// The pass/fail table `wasm-ccm plugin test` prints. Failure reasons are printed in full (they are the point);
// details of passing checks are cut to keep the table readable.
import type { DescribeResponse } from '../abi/index.ts';
import type { CheckResult } from './check.ts';

export interface ConformanceReport {
  pluginPath: string;
  /** What ccm_describe said, when the plugin loaded. */
  description: DescribeResponse | undefined;
  results: CheckResult[];
  elapsedMs: number;
}

const PASS_DETAIL_MAX = 90;

function label(r: CheckResult): string {
  if (r.status === 'pass') return 'pass';
  if (r.status === 'fail') return 'FAIL';
  return r.detail === 'not declared' ? 'skip (not declared)' : 'skip';
}

function detailOf(r: CheckResult): string {
  if (r.status === 'skip') return r.detail === 'not declared' ? '' : `(${r.detail})`;
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
  lines.push('');

  const rows = report.results.map((r) => [label(r), `${r.group}: ${r.title}`, detailOf(r)] as const);
  const w0 = Math.max('RESULT'.length, ...rows.map((r) => r[0].length));
  const w1 = Math.max('CHECK'.length, ...rows.map((r) => r[1].length));
  const line = (a: string, b: string, c: string): string => `${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`.trimEnd();
  lines.push(line('RESULT', 'CHECK', 'DETAIL'));
  for (const [a, b, c] of rows) lines.push(line(a, b, c));

  const count = (s: CheckResult['status']): number => report.results.filter((r) => r.status === s).length;
  const failed = count('fail');
  lines.push('');
  lines.push(
    `${report.results.length} checks: ${count('pass')} passed, ${failed} failed, ${count('skip')} skipped ` +
      `in ${(report.elapsedMs / 1000).toFixed(1)} s — ${failed > 0 ? 'FAILED' : 'PASSED'}`,
  );
  return `${lines.join('\n')}\n`;
}
