// `npm test`: every test file, in two lanes run by two vitest processes at once. End-to-end files wait on clouds,
// control planes and CCM loops far more than they compute, so two lanes finish in about the time of the longer one.
// Each lane's e2e project starts its own control plane (test/support/global-setup.ts), so the files of one lane never
// see the Nodes or Services of the other; within a lane files still run one at a time. Arguments (`npm test -- x`)
// run one plain `vitest run x` instead.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { printSummary } from './test-summary.ts';

const REPORTS = 'node_modules/.cache/wasm-ccm';
const REPORT_PREFIX = 'test-results';

interface Lane {
  name: string;
  /** vitest.config.ts projects the lane runs. */
  projects: string[];
}

/** Which files are in which e2e project, and why: vitest.config.ts. */
const LANES: readonly Lane[] = [
  { name: 'a', projects: ['unit', 'e2e-a'] },
  { name: 'b', projects: ['e2e-b'] },
];

/** The vitest processes running, to pass a signal on to. */
const children = new Set<ChildProcess>();

/** Runs vitest with `args`, each output line prefixed with `[lane]` when there is more than one; resolves its code. */
function runVitest(args: string[], label: string | undefined): Promise<number> {
  const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    if (label === undefined) {
      from.pipe(to);
      continue;
    }
    createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => to.write(`[${label}] ${line}\n`));
  }
  children.add(child);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      children.delete(child);
      // No code: ended by a signal.
      resolve(code ?? 128);
    });
  });
}

/** The JSON report of a lane (`''`: of a plain run). */
function report(lane: string): string {
  return `${REPORTS}/${REPORT_PREFIX}${lane === '' ? '' : `-${lane}`}.json`;
}

function clearReports(): void {
  mkdirSync(REPORTS, { recursive: true });
  for (const f of readdirSync(REPORTS)) if (f.startsWith(REPORT_PREFIX)) rmSync(`${REPORTS}/${f}`);
}

async function main(): Promise<void> {
  clearReports();
  const extra = process.argv.slice(2);
  if (extra.length > 0) {
    const code = await runVitest([...extra, `--outputFile.json=${report('')}`], undefined);
    const passed = printSummary([{ label: 'vitest', path: report('') }]);
    process.exitCode = code === 0 && passed ? 0 : 1;
    return;
  }
  const codes = await Promise.all(
    LANES.map((lane) =>
      runVitest(
        [...lane.projects.flatMap((p) => ['--project', p]), `--outputFile.json=${report(lane.name)}`],
        lane.name,
      ),
    ),
  );
  LANES.forEach((lane, i) => console.log(`lane ${lane.name} (${lane.projects.join(', ')}): exit ${codes[i]}`));
  const passed = printSummary(LANES.map((lane) => ({ label: `lane ${lane.name}`, path: report(lane.name) })));
  process.exitCode = codes.some((c) => c !== 0) || !passed ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // Passed on, so that each vitest tears down its control plane and clouds; this process ends when they have.
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}
await main();
