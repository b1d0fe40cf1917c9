// The plugin-attack suite, at call time: one hostile module (raw WebAssembly text) whose exports each attack the
// sandbox one way, loaded in this very process (a fatal V8 abort would end the test run). For each attack: the call
// fails with a clear error within its deadline + 1 s, the instance is replaced (the next probe is served by a fresh
// one), the next good call succeeds, and the process's memory returns to within 20% of its level before the attack.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError, TimeoutError } from '../../../host/src/cloudprovider/index.ts';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { ATTACK_EXPORTS, ATTACK_IMPORTS } from './support/attack-exports.ts';
import { hostileModule, instanceRestarts } from '../../../lab/plugins/index.ts';
import { recordingLogger } from './support/recording-logger.ts';

const DEADLINE_MS = 2000;
const MiB = 1024 * 1024;
const registry = new Registry();
const { logger, records } = recordingLogger();
const decoder = new TextDecoder();
let plugin: LoadedPlugin;
const measured: Array<Record<string, string | number>> = [];

beforeAll(async () => {
  plugin = await loadPlugin({
    source: {
      bytes: hostileModule({
        imports: ATTACK_IMPORTS,
        body: ATTACK_EXPORTS,
        features: ['exception-handling', 'reference-types'],
      }),
      name: 'hostile.wasm',
    },
    // No spare: after a lost instance the next call is served by its replacement, which makes "fresh" observable.
    pool: { size: 1 },
    limits: {
      callTimeoutMs: DEADLINE_MS,
      memoryBytes: 32 * MiB,
      kernelMemoryBytes: 8 * MiB,
      maxOutputBytes: 1 * MiB,
      queueTimeoutMs: 30_000,
    },
    logger,
    registry,
  });
}, 60_000);

afterAll(async () => {
  await plugin?.close();
  console.info('plugin attacks (call time)');
  console.table(measured);
});

const probe = async (): Promise<string> => decoder.decode(await plugin.callExport('probe', new Uint8Array(0)));

/** Runs a log-flooding export (served: `{"ok":{}}`) until the runtime notes `dropped`; the records since it began. */
async function servedDropping(name: string, dropped: string): Promise<typeof records> {
  const before = records.length;
  expect(decoder.decode(await plugin.callExport(name, new Uint8Array(0)))).toBe('{"ok":{}}');
  await expect.poll(() => records.slice(before).find((r) => r.message.startsWith('dropped '))?.message).toBe(dropped);
  return records.slice(before);
}

async function attack(name: string): Promise<{ error: Error; elapsedMs: number }> {
  const started = performance.now();
  try {
    await plugin.callExport(name, new Uint8Array(0));
  } catch (err) {
    return { error: err as Error, elapsedMs: performance.now() - started };
  }
  throw new Error(`the attack ${name} did not fail`);
}

describe('a hostile plugin at call time', () => {
  it.each([
    ['loop', TimeoutError, /^hostile\.loop: loop did not finish within 2000 ms/],
    ['memory_bomb', InternalError, /trap: memory access out of bounds \(linear memory at 3\d MiB of its 32 MiB cap/],
    ['recurse', InternalError, /trapped in recurse: RangeError: Maximum call stack size exceeded/],
    [
      'recurse_import',
      InternalError,
      /trapped in recurse_import: (the host function ccm_now_ms failed: )?RangeError: Maximum call stack size exceeded/,
    ],
    ['bad_load', InternalError, /trapped in bad_load: trap: memory access out of bounds$/],
    ['bad_block', InternalError, /bad address: address 0x63000000000000 names no memory block$/],
    [
      'bad_input_read',
      InternalError,
      /bad address: ccm_input_read: 0 bytes at address 0xfffffff0 run past the end of linear memory/,
    ],
    ['huge_output', InternalError, /huge_output: the plugin's output of 2097152 bytes is above the limit of 1 MiB$/],
    ['kernel_bomb', InternalError, /allocated more than its kernel memory budget of 8 MiB in one call/],
    ['block_bomb', InternalError, /the plugin made more than 16384 kernel blocks in one call$/],
    ['table_bomb', InternalError, /trapped in table_bomb: trap: unreachable$/],
    // The first error decides, not the limit error of the 64 MiB the guest then asked for.
    ['catch_negative_alloc', InternalError, /bad argument: alloc: size -104857600 is not a byte count$/],
    ['catch_limit', InternalError, /asked for 1073741824 bytes with \d+ in use\) \(the plugin caught this error/],
    ['catch_bad_block', InternalError, /names no memory block \(the plugin caught this error/],
    [
      'catch_host_error',
      InternalError,
      /bad address: ccm_http_bytes: 64 bytes at address 0xfffffff0 run past the end of linear memory \(65536 bytes\) \(the plugin caught/,
    ],
  ] as const)(
    '%s: fails clearly in time, the instance is replaced, and memory returns',
    async (name, type, message) => {
      await probe();
      expect(Number(await probe())).toBeGreaterThanOrEqual(2);
      const rssBefore = process.memoryUsage().rss;
      const restartsBefore = await instanceRestarts(registry);

      const { error, elapsedMs } = await attack(name);
      expect(error).toBeInstanceOf(type);
      expect(error.message).toMatch(message);
      expect(elapsedMs).toBeLessThan(DEADLINE_MS + 1000);

      expect(await probe()).toBe('1'); // a fresh instance served it
      expect(decoder.decode(await plugin.callExport('ccm_describe', new Uint8Array(0)))).toContain('"hostile"');
      // The lost instance's worker is gone (its exit is what the restarts metric counts), and memory is back.
      await expect.poll(() => instanceRestarts(registry), { timeout: 40_000, interval: 50 }).toBe(restartsBefore + 1);
      await expect
        .poll(() => process.memoryUsage().rss, { timeout: 10_000, interval: 100 })
        .toBeLessThanOrEqual(rssBefore * 1.2);
      const rssAfter = process.memoryUsage().rss;
      measured.push({
        attack: name,
        error: `${error.name}`,
        failedAfterMs: Math.round(elapsedMs),
        rssBeforeMiB: Math.round(rssBefore / MiB),
        rssAfterMiB: Math.round(rssAfter / MiB),
      });
    },
    60_000,
  );

  it('NUL log flood: is served, with the records over the per-call bytes (as the host writes them) dropped', async () => {
    const logged = await servedDropping(
      'log_nul_flood',
      'dropped 99 log records over the per-call limits (100 records, 65536 bytes as written)',
    );
    const kernel = logged.filter((r) => r.fields.source === 'kernel');
    // Each record is 10 KiB of NULs, 60 KiB once JSON-escaped: one fits in the call's 64 KiB.
    expect(kernel.length).toBe(1);
    const written = kernel.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r.message)), 0);
    expect(written).toBeLessThanOrEqual(64 * 1024);
    measured.push({
      attack: 'log_nul_flood',
      error: '(served; 99 of 100 records dropped)',
      failedAfterMs: 0,
      rssBeforeMiB: 0,
      rssAfterMiB: Math.round(written / 1024),
    });
  });

  it('ccm_log records that are not UTF-8: counted as written (3 bytes an invalid byte), the rest dropped', async () => {
    const logged = await servedDropping(
      'log_invalid_utf8',
      'dropped 9 log records over the per-call limits (100 records, 65536 bytes as written)',
    );
    const written = logged.filter((r) => r.fields.source === 'ccm_log');
    // 21 records of 3,041 bytes as written fit in 64 KiB.
    expect(written).toHaveLength(21);
    expect(written[0]?.message).toBe('\ufffd'.repeat(1000));
  });

  it('a record written before computing past the deadline reaches the log once the worker is stopped', async () => {
    const before = records.length;
    const { error } = await attack('log_then_loop');
    expect(error).toBeInstanceOf(TimeoutError);
    await expect
      .poll(() => records.slice(before).find((r) => r.fields.source === 'kernel')?.fields.method, { timeout: 10_000 })
      .toBe('log_then_loop');
    expect(records.slice(before).find((r) => r.fields.source === 'kernel')?.message).toBe('\0'.repeat(5));
  });

  it('a 4 MiB Extism error: fails with the message cut to 4 KiB, the cut marked', async () => {
    const { error } = await attack('huge_error');
    expect(error).toBeInstanceOf(InternalError);
    expect(error.message).toContain("… [cut: the plugin's message has 4194304 bytes, at most 4096 are kept]");
    expect(error.message.length).toBeLessThan(4096 + 200);
    expect(Number(await probe())).toBeGreaterThanOrEqual(1);
  });

  it('log flood: is served, with the records over the per-call limit dropped and counted', async () => {
    const before = records.length;
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    expect(decoder.decode(await plugin.callExport('log_flood', new Uint8Array(0)))).toBe('{"ok":{}}');
    const elapsedMs = performance.now() - started;
    await expect.poll(() => records.some((r) => r.message.includes('dropped 99900 log records'))).toBe(true);
    expect(records.slice(before).filter((r) => r.fields.source === 'kernel').length).toBe(100);
    expect(await probe()).not.toBe('1'); // the same instance serves on
    expect(process.memoryUsage().rss).toBeLessThanOrEqual(rssBefore * 1.2);
    measured.push({
      attack: 'log_flood',
      error: '(served; 99,900 records dropped)',
      failedAfterMs: Math.round(elapsedMs),
      rssBeforeMiB: Math.round(rssBefore / MiB),
      rssAfterMiB: Math.round(process.memoryUsage().rss / MiB),
    });
  });
});
