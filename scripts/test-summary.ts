// The run's closing lines from vitest's JSON reports (one per lane of scripts/run-tests.ts, or the one of a plain
// `vitest run`): each failed file and test with the head of its error, then "N passed, N failed" (", N skipped" when
// any). They come last so that a log cut to its tail (CI keeps the end) still says what failed.
import { existsSync, readFileSync } from 'node:fs';

interface AssertionResult {
  fullName: string;
  status: string;
  failureMessages: string[];
}

interface FileResult {
  name: string;
  status: string;
  message: string;
  assertionResults: AssertionResult[];
}

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: FileResult[];
}

/** Lines of an error shown per failed test: enough for the assertion and the first frames. */
const ERROR_HEAD_LINES = 12;

function head(text: string): string {
  return (
    text
      .split('\n')
      // Frames inside vitest say nothing about the failure.
      .filter((line) => !line.includes('/node_modules/'))
      .slice(0, ERROR_HEAD_LINES)
      .map((line) => `      ${line}`)
      .join('\n')
  );
}

function failures(report: Report, cwd: string): string[] {
  const lines: string[] = [];
  for (const file of report.testResults) {
    const failed = file.assertionResults.filter((a) => a.status === 'failed');
    if (file.status !== 'failed' && failed.length === 0) continue;
    lines.push(`  FAIL ${file.name.replace(`${cwd}/`, '')}`);
    // A file that failed outside any test (import, hook, setup) has its error on the file.
    if (failed.length === 0 && file.message !== '') lines.push(head(file.message));
    for (const a of failed) lines.push(`    x ${a.fullName}`, head(a.failureMessages.join('\n')));
  }
  return lines;
}

/**
 * Prints the failures and the totals of the reports at `paths`, one per `label`; a missing report is a failure of its
 * own (the vitest run ended before writing it). Returns whether the run passed: no failure, no missing report, and at
 * least one test passed.
 */
export function printSummary(reports: ReadonlyArray<{ label: string; path: string }>): boolean {
  const cwd = process.cwd();
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let missing = 0;
  const out: string[] = [];
  for (const { label, path } of reports) {
    if (!existsSync(path)) {
      out.push(`${label}: no report at ${path}: its vitest ended before writing one (see its output above)`);
      missing++;
      continue;
    }
    const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    const lines = failures(report, cwd);
    if (lines.length > 0) out.push(`${label}: failed`, ...lines);
  }
  out.push(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  process.stdout.write(`${out.join('\n')}\n`);
  return failed === 0 && missing === 0 && passed > 0;
}
