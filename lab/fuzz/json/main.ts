// Differential fuzzing of the plugin SDK's JSON reader and writer (plugin-sdk/assembly/json/) against JSON.parse and
// JSON.stringify: generated and mutated documents, same value or both refuse, no trap, and what the SDK writes parses
// back to the same value. Allowed divergences are listed in plugin-sdk/README.md ("JSON").
//
// Usage: npm run fuzz:json -- [--cases=100000] [--seed=1] [--out=bench/results/fuzz-json.json]
// Exit status 1 when there is an unexplained divergence or a trap (each printed with its case, to replay).
import { ALLOWED_DIVERGENCES } from './judge.ts';
import { runFuzz } from './run.ts';
import { fuzzArgs, reportFuzz } from '../cli.ts';

const args = fuzzArgs('fuzz-json');
const report = await runFuzz({ cases: args.cases, seed: args.seed });
reportFuzz('fuzz-json', args, report, 'valid JSON (both accepted)', ALLOWED_DIVERGENCES);
