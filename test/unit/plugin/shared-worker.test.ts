// Several instances in one worker thread (sandbox/plugin-worker.ts): calls that wait on the host run side by side on
// one thread; a call that computes past its deadline takes its worker down, and the other instance's call fails
// saying why; a call still waiting at its deadline, or an instance retired after a trap, is closed alone while its
// neighbour keeps serving.
import { readdirSync, readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../host/src/cloudprovider/index.ts';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { PluginWorkerGroup } from '../../../host/src/plugin/sandbox/plugin-worker.ts';
import { workerResourceLimits } from '../../../host/src/plugin/sandbox/worker/worker-heap.ts';
import { hostileModule, instanceRestarts } from '../../../lab/plugins/index.ts';

const DEADLINE_MS = 5_000;
const empty = new Uint8Array(0);

/** Plugin worker threads of this process (Node names a worker's thread after its `name` option). */
function pluginThreads(): number {
  let count = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === 'wasm-ccm-plugin') count++;
    } catch {
      // the thread exited meanwhile
    }
  }
  return count;
}

async function failure(call: Promise<unknown>): Promise<Error> {
  return call.then(
    () => new Error('the call returned'),
    (err: unknown) => err as Error,
  );
}

describe('instances sharing a worker', () => {
  const registry = new Registry();
  let plugin: LoadedPlugin;

  beforeAll(async () => {
    plugin = await loadPlugin({
      source: {
        bytes: hostileModule({
          imports: '(import "extism:host/user" "ccm_sleep_ms" (func $sleep (param i32)))',
          body: [
            '(func (export "sleep_300") (result i32) (call $sleep (i32.const 300)) (call $ok))',
            '(func (export "spin") (result i32) (loop $l (br $l)) (i32.const 0))',
            '(func (export "trap") (result i32) (unreachable))',
          ].join('\n'),
        }),
        name: 'shared.wasm',
      },
      pool: { size: 2, minInstances: 2 },
      limits: { callTimeoutMs: DEADLINE_MS, queueTimeoutMs: 60_000, instancesPerWorker: 2 },
      registry,
    });
  }, 60_000);

  afterAll(async () => {
    await plugin?.close();
  });

  it('runs two calls that wait on the host side by side on one thread', async () => {
    expect(pluginThreads()).toBe(1);
    const started = performance.now();
    await Promise.all([plugin.callExport('sleep_300', empty), plugin.callExport('sleep_300', empty)]);
    const wallMs = performance.now() - started;
    expect(wallMs).toBeGreaterThanOrEqual(299);
    // One after the other would take 600 ms.
    expect(wallMs).toBeLessThan(550);
    expect(pluginThreads()).toBe(1);
  });

  it('closes an instance retired after a trap alone: its neighbour serves on, the replacement joins the worker', async () => {
    const restarts = await instanceRestarts(registry);
    const error = await failure(plugin.callExport('trap', empty));
    expect(error.message).toMatch(/trapped in trap: trap: unreachable/);
    await expect.poll(() => instanceRestarts(registry), { timeout: 5_000, interval: 10 }).toBe(restarts + 1);
    await Promise.all([plugin.callExport('sleep_300', empty), plugin.callExport('sleep_300', empty)]);
    expect(pluginThreads()).toBe(1);
  });

  it('abandons a call waiting past its deadline alone: the neighbour call completes in the same worker', async () => {
    const restarts = await instanceRestarts(registry);
    const late = failure(plugin.callExport('sleep_300', empty, 100));
    const neighbour = plugin.callExport('sleep_300', empty, DEADLINE_MS);
    expect(await late).toBeInstanceOf(TimeoutError);
    expect(new TextDecoder().decode(await neighbour)).toContain('"ok"');
    await expect.poll(() => instanceRestarts(registry), { timeout: 5_000, interval: 10 }).toBe(restarts + 1);
    await Promise.all([plugin.callExport('sleep_300', empty), plugin.callExport('sleep_300', empty)]);
    expect(pluginThreads()).toBe(1);
  });

  it('a call computing past its deadline takes its worker down; the neighbour call fails naming it', async () => {
    const restarts = await instanceRestarts(registry);
    const spinning = failure(plugin.callExport('spin', empty, 300));
    const neighbour = failure(plugin.callExport('sleep_300', empty, DEADLINE_MS));
    const spun = await spinning;
    expect(spun).toBeInstanceOf(TimeoutError);
    const lost = await neighbour;
    expect(lost).not.toBeInstanceOf(TimeoutError);
    expect(lost.message).toMatch(/its worker was stopped: instance \d+: spin ran past its deadline/);
    // Both instances are replaced, in one new worker.
    await expect.poll(() => instanceRestarts(registry), { timeout: 5_000, interval: 10 }).toBe(restarts + 2);
    await Promise.all([plugin.callExport('sleep_300', empty), plugin.callExport('sleep_300', empty)]);
    await expect.poll(pluginThreads, { timeout: 5_000, interval: 10 }).toBe(1);
  });
});

describe('the suspending imports outside a call', () => {
  it("refuse the module's start function: the load fails naming the import", async () => {
    const load = loadPlugin({
      source: {
        bytes: hostileModule({
          imports: '(import "extism:host/user" "ccm_sleep_ms" (func $sleep (param i32)))',
          body: '(func (export "_initialize") (call $sleep (i32.const 10)))',
        }),
        name: 'sleeps-at-start.wasm',
      },
      pool: { size: 1 },
    });
    await expect(load).rejects.toThrow(/ccm_sleep_ms serves calls only, not the module's start function/);
  });
});

describe('a Node.js without JSPI', () => {
  it('is refused when a plugin is loaded, naming what it lacks', () => {
    const suspending = Object.getOwnPropertyDescriptor(WebAssembly, 'Suspending');
    if (suspending === undefined) throw new Error('this Node.js has no WebAssembly.Suspending to take away');
    const emptyModule = new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    const limits = workerResourceLimits(64, 65_536);
    delete (WebAssembly as { Suspending?: unknown }).Suspending;
    try {
      expect(() => new PluginWorkerGroup({ module: emptyModule, limits: DEFAULT_WORKER_LIMITS }, limits, 1)).toThrow(
        /lacks WebAssembly JSPI \(WebAssembly\.Suspending\), which plugins need/,
      );
    } finally {
      Object.defineProperty(WebAssembly, 'Suspending', suspending);
    }
    expect(new PluginWorkerGroup({ module: emptyModule, limits: DEFAULT_WORKER_LIMITS }, limits, 1).limits).toBe(
      DEFAULT_WORKER_LIMITS,
    );
  });
});

const DEFAULT_WORKER_LIMITS = {
  kernelMemoryBytes: 1 << 20,
  maxOutputBytes: 1 << 20,
  maxHttpRequestBytes: 1 << 20,
  maxLogRecordsPerCall: 10,
  maxLogRecordBytes: 1024,
  maxLogBytesPerCall: 4096,
  memoryCapBytes: 65_536,
};
