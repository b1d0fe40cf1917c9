// Child process of wasm-code-gc.test.ts: loses `rounds` x 2 instances at their deadline, each having called two
// kernel imports in a loop (so V8 tiers up their wrappers), then prints how many instances were replaced.
import { Registry } from 'prom-client';
import { loadPlugin } from '../../../../host/src/plugin/runtime/load-plugin.ts';
import { hostileModule, instanceRestarts } from './hostile-plugin.ts';

const SPIN = `(func (export "spin") (result i32) (local $b i64) (local.set $b (call $alloc (i64.const 16)))
  (loop $l (call $store_u8 (local.get $b) (i32.const 1)) (drop (call $load_u8 (local.get $b))) (br $l)) (i32.const 0))`;

const rounds = Number(process.argv[2] ?? 10);
const registry = new Registry();
const plugin = await loadPlugin({
  source: { bytes: hostileModule({ body: SPIN }), name: 'spin.wasm' },
  pool: { size: 2 },
  limits: { callTimeoutMs: 100, queueTimeoutMs: 60_000 },
  registry,
});
const spin = () => plugin.callExport('spin', new Uint8Array(0)).catch(() => undefined);
for (let i = 0; i < rounds; i++) await Promise.all([spin(), spin()]);
await plugin.callExport('probe', new Uint8Array(0));
while ((await instanceRestarts(registry)) < rounds * 2) await new Promise((r) => setTimeout(r, 20));
console.log(`replaced ${await instanceRestarts(registry)}`);
await plugin.close();
