// Prints the run's plain closing line, "N passed, N failed" (", N skipped" when any), from vitest's JSON report.
import { readFileSync } from 'node:fs';

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

const report = JSON.parse(readFileSync('node_modules/.cache/wasm-ccm/test-results.json', 'utf8')) as Report;
const skipped = report.numPendingTests + report.numTodoTests;
process.stdout.write(
  `${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`,
);
process.exitCode = report.numFailedTests > 0 || report.numPassedTests === 0 ? 1 : 0;
