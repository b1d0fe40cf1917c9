// ccm_sleep_ms (ABI 1.4): a pause suspends the instance without using CPU, and a pause past the call's deadline
// ends like any other overrun: the call fails with Timeout at the deadline and the worker, idle meanwhile, exits at
// once.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../host/src/cloudprovider/index.ts';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { stuckWorkerCount } from '../../../host/src/plugin/sandbox/worker-lifecycle.ts';
import { hostileModule, instanceRestarts } from '../../../lab/plugins/index.ts';

const DEADLINE_MS = 400;
const sleeper = (name: string, ms: number): string =>
  `(func (export "${name}") (result i32) (call $sleep (i32.const ${ms})) (call $ok))`;

describe('ccm_sleep_ms', () => {
  const registry = new Registry();
  let plugin: LoadedPlugin;

  beforeAll(async () => {
    plugin = await loadPlugin({
      source: {
        bytes: hostileModule({
          imports: '(import "extism:host/user" "ccm_sleep_ms" (func $sleep (param i32)))',
          body: [
            sleeper('sleep_200', 200),
            sleeper('sleep_negative', -1_000_000),
            sleeper('sleep_past_deadline', 50_000),
            `(func (export "sleep_forever") (result i32) (loop $l (call $sleep (i32.const 60000)) (br $l)) (i32.const 0))`,
          ].join('\n'),
        }),
        name: 'sleeper.wasm',
      },
      pool: { size: 1 },
      limits: { callTimeoutMs: DEADLINE_MS, queueTimeoutMs: 60_000 },
      registry,
    });
  }, 60_000);

  afterAll(async () => {
    await plugin?.close();
  });

  it('pauses the call for the time asked, with next to no CPU', async () => {
    await plugin.callExport('probe', new Uint8Array(0));
    // The process's CPU over three sleeps, the least kept: a collection or a compile elsewhere in the process can
    // land in one of them, a spinning sleep costs its 200 ms in every one.
    let cpuMs = Infinity;
    let wallMs = 0;
    for (let i = 0; i < 3; i++) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await plugin.callExport('sleep_200', new Uint8Array(0));
      const wall = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      expect(wall).toBeGreaterThanOrEqual(199);
      wallMs = Math.max(wallMs, wall);
      cpuMs = Math.min(cpuMs, (cpu.user + cpu.system) / 1000);
    }
    // A spin of 200 ms would cost 200 ms of CPU on the worker's thread alone.
    expect(cpuMs).toBeLessThan(100);
    console.info(`sleep 200 ms: ${Math.round(wallMs)} ms wall, ${cpuMs.toFixed(1)} ms CPU`);
  });

  it('does not pause for a negative time', async () => {
    const started = performance.now();
    await plugin.callExport('sleep_negative', new Uint8Array(0));
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS);
  });

  for (const name of ['sleep_past_deadline', 'sleep_forever']) {
    it(`${name}: Timeout at the deadline, the worker exits within a second, a replacement serves`, async () => {
      const restartsBefore = await instanceRestarts(registry);
      const started = performance.now();
      const error = await plugin.callExport(name, new Uint8Array(0)).then(
        () => new Error('the call returned'),
        (err: unknown) => err as Error,
      );
      expect(error).toBeInstanceOf(TimeoutError);
      expect(performance.now() - started).toBeLessThan(DEADLINE_MS + 1000);
      const failedAt = performance.now();
      await expect.poll(() => instanceRestarts(registry), { timeout: 1000, interval: 10 }).toBe(restartsBefore + 1);
      console.info(`${name}: worker exited ${Math.round(performance.now() - failedAt)} ms after the call failed`);
      expect(stuckWorkerCount()).toBe(0);
      expect(new TextDecoder().decode(await plugin.callExport('probe', new Uint8Array(0)))).toBe('1');
    });
  }
});
