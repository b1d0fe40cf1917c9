// No plugin thread outlives its call's deadline by more than a second. V8 stops a worker only where its code checks
// for interrupts: these guests are the loops that used to keep their thread spinning after terminate() (each a bulk
// instruction of milliseconds in a loop, which code compiled for dynamic tiering checks only when its tiering budget
// runs out; and cycles of tail calls, which TurboFan's code never checks). The first kind stops now that the runtime
// turns dynamic tiering off (module/engine-flags.ts); the second is refused at load (module/instruction-policy.ts).
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../host/src/cloudprovider/index.ts';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { stuckWorkerCount } from '../../../host/src/plugin/sandbox/worker-lifecycle.ts';
import { hostileModule, instanceRestarts } from '../../../lab/plugins/index.ts';

const DEADLINE_MS = 400;
const MIB16 = 16 * 1024 * 1024;
const spin = (name: string, loopBody: string): string =>
  `(func (export "${name}") (result i32) (loop $l ${loopBody} (br $l)) (i32.const 0))`;

// Each guest: an export that never returns, and what its module needs around it.
const LOOPS = [
  { name: 'fill_16mib', body: spin('fill_16mib', `(memory.fill (i32.const 0) (i32.const 0) (i32.const ${MIB16}))`) },
  {
    name: 'copy_16mib',
    body: spin('copy_16mib', `(memory.copy (i32.const 0) (i32.const ${MIB16}) (i32.const ${MIB16}))`),
  },
  {
    name: 'fill_256mib',
    // One fill of the whole 256 MiB cap is a single builtin call that V8 cannot interrupt: the worker stops at the
    // next check after it, so the bound is a second past the time one fill takes (fill_256mib_once measures it).
    once: 'fill_256mib_once',
    body: `${spin('fill_256mib', '(memory.fill (i32.const 0) (i32.const 1) (i32.const 268435456))')}
      (func (export "fill_256mib_once") (result i32)
        (memory.fill (i32.const 0) (i32.const 2) (i32.const 268435456)) (call $ok))`,
  },
  {
    name: 'leaf_fill_called',
    body: `(func $leaf (memory.fill (i32.const 0) (i32.const 0) (i32.const ${MIB16})))
      ${spin('leaf_fill_called', '(call $leaf)')}`,
  },
  {
    name: 'table_fill',
    body: `(table $t 10000 funcref) ${spin('table_fill', '(table.fill $t (i32.const 0) (ref.null func) (i32.const 10000))')}`,
  },
  { name: 'plain_loop', body: spin('plain_loop', '(nop)') },
] as const;

const TAIL_CALLS = {
  return_call: '(func $f (export "spin") (return_call $f))',
  return_call_indirect: `(type $v (func)) (table $calls 2 funcref) (elem (table $calls) (i32.const 0) func $a $b)
    (func $a (export "spin") (return_call_indirect $calls (type $v) (i32.const 1)))
    (func $b (return_call_indirect $calls (type $v) (i32.const 0)))`,
  return_call_with_arguments: `(func $f (export "spin") (return_call $g (i32.const 1)))
    (func $g (param i32) (return_call $f))`,
};

describe('a plugin loop past its deadline', () => {
  const registry = new Registry();
  let plugin: LoadedPlugin;

  beforeAll(async () => {
    plugin = await loadPlugin({
      source: {
        bytes: hostileModule({
          memory: '(memory (export "memory") 4096)',
          body: LOOPS.map((loop) => loop.body).join('\n'),
          features: ['bulk-memory', 'reference-types'],
        }),
        name: 'loops.wasm',
      },
      pool: { size: 1 },
      limits: { callTimeoutMs: DEADLINE_MS, queueTimeoutMs: 60_000 },
      registry,
    });
  }, 60_000);

  afterAll(async () => {
    await plugin?.close();
  });

  for (const loop of LOOPS) {
    it(`${loop.name}: the worker exits within a second of the deadline, and a replacement serves`, async () => {
      await plugin.callExport('probe', new Uint8Array(0));
      const instructionMs = 'once' in loop ? await durationOf(plugin, loop.once) : 0;
      const restartsBefore = await instanceRestarts(registry);
      const error = await plugin.callExport(loop.name, new Uint8Array(0)).then(
        () => new Error('the call returned'),
        (err: unknown) => err as Error,
      );
      expect(error).toBeInstanceOf(TimeoutError);
      const failedAt = performance.now();
      // The restarts metric counts a lost instance once its worker has exited.
      await expect
        .poll(() => instanceRestarts(registry), { timeout: 1000 + instructionMs, interval: 10 })
        .toBe(restartsBefore + 1);
      const exitMs = performance.now() - failedAt;
      expect(exitMs).toBeLessThan(1000 + instructionMs);
      expect(stuckWorkerCount()).toBe(0);
      expect(new TextDecoder().decode(await plugin.callExport('probe', new Uint8Array(0)))).toBe('1');
      const instruction = instructionMs > 0 ? ` (one ${loop.name} instruction: ${Math.round(instructionMs)} ms)` : '';
      console.info(`${loop.name}: worker exited ${Math.round(exitMs)} ms after the call failed${instruction}`);
    });
  }
});

async function durationOf(plugin: LoadedPlugin, exportName: string): Promise<number> {
  const started = performance.now();
  await plugin.callExport(exportName, new Uint8Array(0), 30_000);
  return performance.now() - started;
}

describe('tail calls', () => {
  for (const [name, body] of Object.entries(TAIL_CALLS)) {
    it(`refuses a module with ${name} at load, naming it`, async () => {
      const bytes = hostileModule({ body, features: ['tail-call', 'reference-types'] });
      const instruction = name.startsWith('return_call_indirect') ? 'return_call_indirect' : 'return_call';
      await expect(loadPlugin({ source: { bytes, name: `${name}.wasm` } })).rejects.toThrow(
        new RegExp(`the module uses tail calls \\(${instruction} at offset \\d+, function body \\d+\\)`),
      );
    });
  }
});
