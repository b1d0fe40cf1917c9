// Prints the run's plain closing line, "N passed, N failed" (", N skipped" when any), from vitest's JSON reports:
// one per lane of scripts/run-tests.ts, or the one of a plain `vitest run`.
import { readdirSync, readFileSync } from 'node:fs';

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

const DIR = 'node_modules/.cache/wasm-ccm';
const reports = readdirSync(DIR)
  .filter((f) => f.startsWith('test-results') && f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(`${DIR}/${f}`, 'utf8')) as Report);
const sum = (key: keyof Report): number => reports.reduce((n, r) => n + r[key], 0);
const passed = sum('numPassedTests');
const failed = sum('numFailedTests');
const skipped = sum('numPendingTests') + sum('numTodoTests');
process.stdout.write(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
