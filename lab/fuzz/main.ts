// The differential fuzzers' one command line: `node lab/fuzz/main.ts <engine> [options]`, engine one of ENGINES.
// Each engine is a folder of lab/fuzz/ with the same layout: main.ts (its options, table and results file under
// bench/results/fuzz-<engine>.json), run.ts (generate, run both sides, judge) and judge.ts or the like (what counts
// as a divergence, and the allow-list of deliberate ones with their reasons).
const ENGINES = ['http1', 'json', 'xml', 'soap', 'wasm-code'] as const;

const engine = process.argv[2];
if (!ENGINES.includes(engine as (typeof ENGINES)[number])) {
  console.error(`usage: node lab/fuzz/main.ts <${ENGINES.join('|')}> [options]; got ${engine ?? 'no engine'}`);
  process.exit(2);
}
// The engine reads its options from process.argv as if it were run on its own.
process.argv.splice(2, 1);
await import(`./${engine}/main.ts`);
