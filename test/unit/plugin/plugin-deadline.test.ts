// A call fails at its deadline, not when its worker has finally stopped: the call fails within deadline + 1 s, the
// pool serves the next call from a replacement meanwhile, and memory comes back once the old worker is gone. The
// guest grows its linear memory one page at a time in a loop, up to the default 256 MiB cap: with the worker's V8
// old generation sized for its linear memory (sandbox/worker/worker-heap.ts) the worker stops within seconds of its
// deadline; sized at 64 MB, each grow past 32 MiB ran a full GC and V8 did not act on terminate() for 20-50 s.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../host/src/cloudprovider/index.ts';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { hostileModule, instanceRestarts } from '../../../lab/plugins/index.ts';

const DEADLINE_MS = 1500;
const registry = new Registry();
const decoder = new TextDecoder();
let plugin: LoadedPlugin;

beforeAll(async () => {
  plugin = await loadPlugin({
    source: {
      bytes: hostileModule({
        body: '(func (export "grow_pages") (result i32) (loop $l (drop (memory.grow (i32.const 1))) (br $l)) (i32.const 0))',
      }),
      name: 'grower.wasm',
    },
    pool: { size: 1 },
    limits: { callTimeoutMs: DEADLINE_MS, queueTimeoutMs: 30_000 },
    registry,
  });
}, 60_000);

afterAll(async () => {
  await plugin?.close();
});

describe('a call deadline', () => {
  it('fails a memory-growing guest at its deadline; a replacement serves while the worker stops', async () => {
    await plugin.callExport('probe', new Uint8Array(0));
    const rssBefore = process.memoryUsage().rss;
    const restartsBefore = await instanceRestarts(registry);
    const started = performance.now();
    const error = await plugin.callExport('grow_pages', new Uint8Array(0)).then(
      () => new Error('the call succeeded'),
      (err: unknown) => err as Error,
    );
    const elapsedMs = performance.now() - started;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toBe(
      'hostile.grow_pages: grow_pages did not finish within 1500 ms; its instance is being terminated',
    );
    expect(elapsedMs).toBeLessThan(DEADLINE_MS + 1000);
    expect(decoder.decode(await plugin.callExport('probe', new Uint8Array(0)))).toBe('1');
    console.info(`deadline ${DEADLINE_MS} ms: failed after ${Math.round(elapsedMs)} ms`);
    await expect
      .poll(() => instanceRestarts(registry), { timeout: DEADLINE_MS + 5000, interval: 50 })
      .toBe(restartsBefore + 1);
    console.info(`the old worker exited ${Math.round(performance.now() - started)} ms after the call started`);
    await expect
      .poll(() => process.memoryUsage().rss, { timeout: 10_000, interval: 100 })
      .toBeLessThanOrEqual(rssBefore * 1.2);
  }, 90_000);
});
