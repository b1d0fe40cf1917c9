// npm run chaos -- [--minutes=N] [--seed=S] [--soak]
// Two wasm-ccm replicas on a real control plane with devcloud and kwok, a seeded load, and (without --soak) seeded
// faults; prints a table, writes bench/results/chaos.json (the figures) and chaos.md, the raw run (every sample and
// failover) to bench/results/raw/chaos.json, not committed (soak.* with --soak), and exits 1 on any invariant
// violation or mutation by a non-leader. See bench/README.md.
import { writeFileSync } from 'node:fs';
import { imageEnvProblem } from '../../lab/ccm/index.ts';
import { loadNow, rawResultsPath, writeResults } from '../../lab/measure/index.ts';
import { chaosSummary, markdown, summaryTable, runChaos } from '../../lab/chaos/index.ts';

function flag(name: string, fallback: number): number {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = hit === undefined ? fallback : Number(hit.slice(name.length + 3));
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`--${name}: must be a positive number, got ${hit?.slice(name.length + 3)}`);
    process.exit(2);
  }
  return value;
}

const soak = process.argv.includes('--soak');
const minutes = flag('minutes', soak ? 30 : 5);
const seed = Math.floor(flag('seed', 1));
const name = soak ? 'soak' : 'chaos';
const loadBefore = loadNow();
console.log(`${name}: ${minutes} min, seed ${seed}`);
const keepLogsIn = new URL(`../results/${name}-logs`, import.meta.url).pathname;
// A soak measures memory as the image runs: refuse to measure glibc's malloc under the image's name.
const problem = soak ? imageEnvProblem() : undefined;
if (problem) {
  console.error(`--soak runs the replicas as the image does: ${problem}`);
  process.exit(2);
}
const log = (line: string): void => console.log(line);
const figures = await runChaos({ minutes, seed, soak, keepLogsIn, imageRuntime: soak, log });
const table = summaryTable(figures);
console.log(`\n${table}`);
const out = new URL(`../results/${name}.json`, import.meta.url).pathname;
writeResults(rawResultsPath(out), name, loadBefore, { ...figures });
writeResults(out, name, loadBefore, { ...chaosSummary(figures) });
const md = new URL(`../results/${name}.md`, import.meta.url).pathname;
writeFileSync(md, markdown(figures, table));
console.log(`wrote ${md}`);
const bad = figures.violations.length + figures.settleViolations.length;
if (bad > 0) {
  console.error(`${bad} invariant violations (${figures.nonLeaderMutations} mutations by a non-leader)`);
  process.exit(1);
}
