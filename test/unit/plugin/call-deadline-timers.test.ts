// A finished call leaves nothing behind that wakes the main thread at its deadline. Atomics.waitAsync given a timeout
// keeps a timer of V8's platform that fires at the timeout even when the wait ended long before: a call's waits (the
// call, each host request) then woke an idle CCM once each, seconds after the call. Counted on this thread
// (/proc/thread-self): its voluntary context switches while it idles past the deadline of 100 finished calls.
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { hostileModule } from '../../../lab/plugins/index.ts';

const DEADLINE_MS = 1000;
const CALLS = 100;
let plugin: LoadedPlugin;

beforeAll(async () => {
  plugin = await loadPlugin({
    source: { bytes: hostileModule({ body: '' }), name: 'probe.wasm' },
    pool: { size: 1 },
    limits: { callTimeoutMs: DEADLINE_MS },
    registry: new Registry(),
  });
}, 60_000);

afterAll(async () => {
  await plugin?.close();
});

function threadWakeUps(): number {
  const status = readFileSync('/proc/thread-self/status', 'utf8');
  return Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1]);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('a finished call', () => {
  it('leaves no timer that wakes the thread at its deadline', async () => {
    const decoder = new TextDecoder();
    for (let i = 0; i < CALLS; i++) {
      expect(decoder.decode(await plugin.callExport('probe', new Uint8Array(0)))).toMatch(/^\d+$/);
      // Spaced out, so that timers left behind would each fire on their own.
      await sleep(3);
    }
    const before = threadWakeUps();
    expect(before).toBeGreaterThan(0);
    await sleep(DEADLINE_MS + 300);
    const wakeUps = threadWakeUps() - before;
    console.info(`${CALLS} calls: ${wakeUps} wake-ups of the thread in the ${DEADLINE_MS + 300} ms after`);
    expect(wakeUps).toBeLessThan(CALLS / 4);
  });
});
