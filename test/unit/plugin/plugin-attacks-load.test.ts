// The plugin-attack suite, at load time: modules the host must refuse before they serve, or whose start must fail
// without harming the process. Each is loaded in this process; for each: a clear PluginLoadError within its time
// bound, a good plugin loads and serves right after, and the process's memory returns to within 20% of its level
// before the attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginLoadError, loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { type HostileModule, hostileModule } from '../../../lab/plugins/index.ts';

// Long enough for a worker to start on a loaded 2-core machine (the memory bomb's trap must come before it).
const START_TIMEOUT_MS = 5000;
const MiB = 1024 * 1024;
const decoder = new TextDecoder();
const measured: Array<Record<string, string | number>> = [];

// The first load pays one-time costs (compiling the host's worker code, V8's code caches): before any baseline.
beforeAll(async () => {
  const warm = await load(hostileModule());
  await warm.close();
}, 30_000);

afterAll(() => {
  console.info('plugin attacks (load time)');
  console.table(measured);
});

const load = (bytes: Uint8Array): Promise<LoadedPlugin> =>
  loadPlugin({
    source: { bytes, name: 'hostile.wasm' },
    pool: { size: 1 },
    limits: { startTimeoutMs: START_TIMEOUT_MS, memoryBytes: 32 * MiB },
  });

const spin = '(loop $l (br $l))';
// Time bounds: a module refused before compiling fails at once; one whose instance never gets ready fails at the
// start deadline; one whose ccm_initialize loops fails at the call deadline, once its instance started.
const REFUSED = 1000;
const START_BOUND = START_TIMEOUT_MS + 1000;
const INITIALIZE_BOUND = 2 * START_TIMEOUT_MS + 1000;

describe('a hostile plugin at load time', () => {
  it.each<[string, HostileModule, RegExp, number]>([
    [
      'a 10M-entry table',
      { body: '(table 10000000 funcref)' },
      /the module's tables need 10000000 entries at start, above the cap of 10000 table entries$/,
      REFUSED,
    ],
    [
      'element segments of 20,000 entries',
      { body: `(func $f) (elem func ${'$f '.repeat(20_000)})`, features: ['bulk-memory', 'reference-types'] },
      /element segments hold 20000 entries, above the cap of 10000 table entries$/,
      REFUSED,
    ],
    [
      'a memory starting above the cap',
      { memory: '(memory (export "memory") 1000)' },
      /needs 62\.50 MiB of memory at start, above the cap of 32 MiB$/,
      REFUSED,
    ],
    [
      'WASI, env and unknown host functions',
      {
        imports: `(import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
          (import "env" "abort" (func (param i32 i32 i32 i32)))
          (import "extism:host/user" "ccm_exec" (func (param i64) (result i64)))
          (import "extism:host/env" "http_request" (func (param i64 i64) (result i64)))`,
      },
      /wasi_snapshot_preview1\.fd_write: WASI is not available to plugins.*env\.abort: the 'env' module is not provided.*extism:host\/user\.ccm_exec: no such function.*extism:host\/env\.http_request: Extism HTTP is disabled/,
      REFUSED,
    ],
    [
      'an imported table and global',
      { imports: '(import "env" "t" (table 1 funcref)) (import "env" "g" (global i32))' },
      /(?=.*env\.t is a table import \(only functions may be imported\))(?=.*env\.g is a global import)/,
      REFUSED,
    ],
    [
      'a module of 100,000 exports',
      { body: `(func $f) ${Array.from({ length: 100_000 }, (_, i) => `(export "e${i}" (func $f))`).join(' ')}` },
      /the module has 100004 exports, above the cap of 1000$/,
      REFUSED,
    ],
    [
      'a start function that loops',
      { body: `(func $spin ${spin}) (start $spin)` },
      /the plugin instance did not start within 5000 ms$/,
      START_BOUND,
    ],
    [
      'a ccm_initialize that loops',
      { initialize: `${spin} (i32.const 0)` },
      /ccm_initialize did not finish within 5000 ms; its instance is being terminated$/,
      INITIALIZE_BOUND,
    ],
    [
      'a start function that grows memory to the cap and traps',
      {
        body: `(func $bomb (block $full (loop $l
            (br_if $full (i32.eq (memory.grow (i32.const 16)) (i32.const -1))) (br $l))) unreachable)
          (start $bomb)`,
      },
      /the plugin instance failed to start: RuntimeError: unreachable$/,
      START_BOUND,
    ],
  ])(
    'refuses %s clearly, and a good plugin loads after it',
    async (what, spec, message, boundMs) => {
      const bytes = hostileModule(spec);
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      const error = await load(bytes).then(
        async (plugin) => {
          await plugin.close();
          return new Error('the plugin loaded');
        },
        (err: unknown) => err as Error,
      );
      const elapsedMs = performance.now() - started;
      expect(error).toBeInstanceOf(PluginLoadError);
      expect(error.message).toMatch(/^cannot load plugin hostile\.wasm: /);
      expect(error.message).toMatch(message);
      expect(elapsedMs).toBeLessThan(boundMs);

      const good = await load(hostileModule());
      expect(decoder.decode(await good.callExport('probe', new Uint8Array(0)))).toBe('1');
      await good.close();
      await expect
        .poll(() => process.memoryUsage().rss, { timeout: 20_000, interval: 100 })
        .toBeLessThanOrEqual(rssBefore * 1.2);
      measured.push({
        attack: what,
        error: error.name,
        failedAfterMs: Math.round(elapsedMs),
        rssBeforeMiB: Math.round(rssBefore / MiB),
        rssAfterMiB: Math.round(process.memoryUsage().rss / MiB),
      });
    },
    40_000,
  );
});
