// What an instance lost at its deadline leaves behind, over many such losses: the process's RSS after N instances were
// replaced, with V8's Wasm code GC off (what the plugin runtime does, host/src/plugin/module/engine-flags.ts) and
// on (turned back on after the plugin loaded, for comparison only: that is the mode that can crash the process).
// The guest calls two kernel imports in a loop until its 100 ms deadline (lab/plugins/spinner.ts), so
// every instance tiers up its import wrappers before it is terminated. Each mode runs in a process of its own.
// Writes bench/results/instance-churn.json and prints a table.
import { execFileSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { Registry } from 'prom-client';
import { instanceRestarts, loadSpinner, spinTwice } from '../../lab/plugins/index.ts';
import { loadNow, writeResults, formatTable } from '../../lab/measure/index.ts';

const RESULTS = new URL('../results/instance-churn.json', import.meta.url).pathname;
const quick = process.argv.includes('--quick');
const CHECKPOINTS = quick ? [0, 50, 100] : [0, 250, 500, 1000, 2000];
interface Sample {
  restarts: number;
  rssMb: number;
}

async function churn(codeGC: boolean): Promise<Sample[]> {
  const registry = new Registry();
  const plugin = await loadSpinner(registry);
  if (codeGC) setFlagsFromString('--wasm-code-gc');
  const samples: Sample[] = [];
  try {
    for (const checkpoint of CHECKPOINTS) {
      while ((await instanceRestarts(registry)) < checkpoint) await spinTwice(plugin);
      await plugin.callExport('probe', new Uint8Array(0));
      globalThis.gc?.();
      samples.push({ restarts: await instanceRestarts(registry), rssMb: process.memoryUsage().rss / 2 ** 20 });
    }
  } finally {
    await plugin.close();
  }
  return samples;
}

const mode = process.argv.find((a) => a.startsWith('--child='))?.slice('--child='.length);
if (mode !== undefined) {
  console.log(JSON.stringify(await churn(mode === 'on')));
} else {
  const loadBefore = loadNow();
  const run = (m: string): Sample[] => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', new URL(import.meta.url).pathname, `--child=${m}`, ...(quick ? ['--quick'] : [])],
      { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 },
    );
    return JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as Sample[];
  };
  const off = run('off');
  const on = run('on');
  const rows = off.map((s, i) => [String(s.restarts), s.rssMb.toFixed(1), (on[i]?.rssMb ?? Number.NaN).toFixed(1)]);
  console.log(formatTable(['instances replaced', 'RSS MB, code GC off', 'RSS MB, code GC on'], rows));
  if (!quick) {
    writeResults(RESULTS, 'instance-churn', loadBefore, {
      callTimeoutMs: 100,
      poolSize: 2,
      codeGCOff: off,
      codeGCOn: on,
    });
  }
}
