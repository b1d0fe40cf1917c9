// How late a call past its deadline fails, and how long its worker takes to stop, for a guest growing its linear
// memory one page at a time in a loop (each grow can cost V8 a full GC, during which it does not act on terminate():
// see host/src/plugin/sandbox/worker/worker-heap.ts), a plain infinite loop, and loops around one bulk memory instruction. Each round loads nothing new: the pool's replacement serves the next round, which starts once the previous
// round's worker has exited (counted by the restarts metric), so rounds do not compete for CPU.
// Writes bench/results/deadline-overrun.json and prints a table.
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Registry } from 'prom-client';
import { loadPlugin } from '../../host/src/plugin/index.ts';
import { hostileModule, instanceRestarts } from '../../lab/plugins/index.ts';
import { median, formatTable } from '../../lab/measure/index.ts';

const RESULTS = new URL('../results/deadline-overrun.json', import.meta.url);
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 1 : 3;
const DEADLINE_MS = 3000;
const MIB16 = 16 * 1024 * 1024;
// Each a loop V8 must stop: memory growth (GC storms), a plain loop, and loops around one bulk instruction (code
// compiled for dynamic tiering checked those only when its tiering budget ran out:
// host/src/plugin/module/engine-flags.ts).
const GUESTS = {
  grow_pages: '(loop $l (drop (memory.grow (i32.const 1))) (br $l))',
  loop: '(loop $l (br $l))',
  fill_16mib: `(loop $l (memory.fill (i32.const 0) (i32.const 0) (i32.const ${MIB16})) (br $l))`,
  copy_16mib: `(loop $l (memory.copy (i32.const 0) (i32.const ${MIB16}) (i32.const ${MIB16})) (br $l))`,
  fill_256mib: '(loop $l (memory.fill (i32.const 0) (i32.const 1) (i32.const 268435456)) (br $l))',
} as const;
// The bulk loops need their memory up front; the grower starts from one page.
const MEMORY: Partial<Record<keyof typeof GUESTS, string>> = {
  fill_16mib: '(memory (export "memory") 512)',
  copy_16mib: '(memory (export "memory") 512)',
  fill_256mib: '(memory (export "memory") 4096)',
};

interface GuestResult {
  overrun_ms: number[];
  worker_exit_after_deadline_ms: number[];
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((r) => setTimeout(r, 20));
}

async function measure(name: keyof typeof GUESTS): Promise<GuestResult> {
  const registry = new Registry();
  const body = `(func (export "${name}") (result i32) ${GUESTS[name]} (i32.const 0))`;
  // The default limits: 256 MiB of linear memory, as a provider runs with.
  const plugin = await loadPlugin({
    source: { bytes: hostileModule({ body, memory: MEMORY[name], features: ['bulk-memory'] }), name: `${name}.wasm` },
    pool: { size: 1 },
    limits: { callTimeoutMs: DEADLINE_MS, queueTimeoutMs: 120_000 },
    registry,
  });
  const result: GuestResult = { overrun_ms: [], worker_exit_after_deadline_ms: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      await plugin.callExport('probe', new Uint8Array(0));
      const exitsBefore = await instanceRestarts(registry);
      const started = performance.now();
      await plugin.callExport(name, new Uint8Array(0)).then(
        () => {
          throw new Error(`${name} finished`);
        },
        () => undefined,
      );
      result.overrun_ms.push(Math.round(performance.now() - started - DEADLINE_MS));
      await waitFor(async () => (await instanceRestarts(registry)) > exitsBefore);
      result.worker_exit_after_deadline_ms.push(Math.round(performance.now() - started - DEADLINE_MS));
    }
  } finally {
    await plugin.close();
  }
  return result;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const guests: Record<string, GuestResult & { overrun_p50_ms: number; overrun_max_ms: number }> = {};
  for (const name of Object.keys(GUESTS) as Array<keyof typeof GUESTS>) {
    const measured = await measure(name);
    guests[name] = {
      ...measured,
      overrun_p50_ms: median(measured.overrun_ms),
      overrun_max_ms: Math.max(...measured.overrun_ms),
    };
  }
  const results = {
    deadlineMs: DEADLINE_MS,
    rounds: ROUNDS,
    guests,
    cpus: availableParallelism(),
    loadAverage1m: { before: loadBefore, after: loadavg()[0] },
  };
  if (!quick) writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  const rows = Object.entries(guests).map(([name, g]) => [
    name,
    String(g.overrun_p50_ms),
    String(g.overrun_max_ms),
    String(median(g.worker_exit_after_deadline_ms)),
    String(Math.max(...g.worker_exit_after_deadline_ms)),
  ]);
  console.log(
    formatTable(['guest', 'overrun p50 ms', 'overrun max ms', 'worker exit p50 ms', 'worker exit max ms'], rows),
  );
  console.log(
    `\ndeadline ${DEADLINE_MS} ms, ${ROUNDS} rounds; worker exit is counted from the deadline; load average ` +
      `${loadBefore?.toFixed(2)} -> ${results.loadAverage1m.after?.toFixed(2)} on ${results.cpus} CPUs; ` +
      `${quick ? 'quick run, results not written' : `written to ${RESULTS.pathname}`}`,
  );
}

await main();
