// A plugin whose `spin` export calls two kernel imports in a loop until its deadline (100 ms): every instance that
// serves it tiers up its import wrappers, then is lost and replaced. For the Wasm code GC test and
// bench/plugin-runtime/instance-churn.ts.
import type { Registry } from 'prom-client';
import { type LoadedPlugin, loadPlugin } from '../../host/src/plugin/index.ts';
import { hostileModule } from './hostile-plugin.ts';

const SPIN = `(func (export "spin") (result i32) (local $b i64) (local.set $b (call $alloc (i64.const 16)))
  (loop $l (call $store_u8 (local.get $b) (i32.const 1)) (drop (call $load_u8 (local.get $b))) (br $l)) (i32.const 0))`;

/** Loads the spinner with a pool of two. */
export function loadSpinner(registry: Registry): Promise<LoadedPlugin> {
  return loadPlugin({
    source: { bytes: hostileModule({ body: SPIN }), name: 'spin.wasm' },
    pool: { size: 2 },
    limits: { callTimeoutMs: 100, queueTimeoutMs: 60_000 },
    registry,
  });
}

/** Two `spin` calls at once: both instances are lost at the deadline. */
export async function spinTwice(plugin: LoadedPlugin): Promise<void> {
  const spin = () => plugin.callExport('spin', new Uint8Array(0)).catch(() => undefined);
  await Promise.all([spin(), spin()]);
}
