// A call fails at its deadline, not when its worker has finally stopped. A guest growing its linear memory one page
// at a time in a loop (to its cap, where memory.grow answers -1 and the loop goes on) keeps V8 from
// noticing the termination request for many seconds: the call must still fail within deadline + 1 s, the pool must
// serve the next call from a replacement meanwhile, and memory must come back once the old worker is gone.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../host/src/cloudprovider/errors.ts';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { hostileModule, instanceRestarts } from './support/hostile-plugin.ts';

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
    pool: { size: 1, spares: 0 },
    // Growing to this cap page by page takes the worker ~10 s, during which V8 does not act on terminate().
    limits: { callTimeoutMs: DEADLINE_MS, queueTimeoutMs: 30_000, memoryBytes: 64 * 1024 * 1024 },
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
    await expect.poll(() => instanceRestarts(registry), { timeout: 60_000, interval: 100 }).toBe(restartsBefore + 1);
    console.info(`the old worker exited ${Math.round(performance.now() - started)} ms after the call started`);
    await expect
      .poll(() => process.memoryUsage().rss, { timeout: 10_000, interval: 100 })
      .toBeLessThanOrEqual(rssBefore * 1.2);
  }, 90_000);
});
