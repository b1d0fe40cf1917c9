// The fault plugin misbehaves one way per call; each failure must come back as its own clear error while the host
// and the pool carry on, and the next call must succeed (on a fresh instance when the old one was lost).
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InstanceNotFoundError,
  InternalError,
  InvalidError,
  RetryError,
  TimeoutError,
  type InstancesV2,
} from '../../../host/src/cloudprovider/index.ts';
import { WasmProvider } from '../../../host/src/plugin/index.ts';
import { buildFixture } from '../../../lab/plugins/index.ts';
import { node } from './support/nodes.ts';
import { recordingLogger } from './support/recording-logger.ts';

let provider: WasmProvider;
let instances: InstancesV2;
const registry = new Registry();
const { logger, records } = recordingLogger();

beforeAll(async () => {
  provider = await WasmProvider.load({
    source: { bytes: await buildFixture('faulty'), name: 'faulty.wasm' },
    clusterName: 'test-cluster',
    // No spare: after a lost instance the next call must be served by the replacement, a fresh instance, which
    // makes "fresh" observable (its call count starts at 1). The pool's tests cover an idle instance taking over.
    pool: { size: 1 },
    limits: {
      callTimeoutMs: 2000,
      methodTimeoutsMs: { instanceMetadata: 400 },
      memoryBytes: 32 * 1024 * 1024,
      kernelMemoryBytes: 32 * 1024 * 1024,
      maxOutputBytes: 4 * 1024 * 1024,
      maxInputBytes: 64 * 1024,
      // Waiting for the replacement to start must not count against the 400 ms deadline of the faulty method.
      queueTimeoutMs: 20_000,
    },
    logger,
    registry,
  });
  instances = provider.instancesV2() as InstancesV2;
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

async function metadataError(fault: string): Promise<Error> {
  try {
    await instances.instanceMetadata(node(fault));
  } catch (err) {
    return err as Error;
  }
  throw new Error(`fault ${fault} did not fail`);
}

/** The number of calls the serving instance has seen: 1 means a fresh instance. */
async function callsOnInstance(): Promise<number> {
  const answer = await instances.instanceMetadata(node('count'));
  return Number(answer.region.replace('calls:', ''));
}

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const found = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = found?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value ?? 0;
}

describe('a misbehaving plugin', () => {
  it('answers normally, initialized with the cluster name, and round-trips non-ASCII text', async () => {
    expect(await instances.instanceExists(node('ok'))).toBe(true);
    expect((await instances.instanceMetadata(node('ok'))).region).toBe('cluster:test-cluster');
    const unicode = await instances.instanceMetadata(node('unicode'));
    expect(unicode.zone).toBe('zürich-1 ☁');
    expect(unicode.region).toBe('東京 — ünïcödé 🚀');
  });

  // Faults that lose the instance: the next call is served by another instance (its call count starts at 1).
  it.each([
    ['trap', InternalError, /trapped in ccm_instance_metadata: trap: unreachable/, 'trap'],
    ['stack', InternalError, /trapped in ccm_instance_metadata: RangeError: Maximum call stack size exceeded/, 'trap'],
    ['bomb', InternalError, /linear memory at \d+ MiB of its 32 MiB cap: the plugin likely ran out of memory/, 'trap'],
    ['kernel-bomb', InternalError, /allocated more than its kernel memory budget of 32 MiB in one call/, 'limit'],
    ['huge', InternalError, /output of 20971520 bytes is above the limit of 4 MiB/, 'limit'],
    [
      'bad-input-address',
      InternalError,
      /the plugin passed a bad address: ccm_input_read: 16 bytes at address 0xfffffff0 run past the end of linear memory/,
      'trap',
    ],
    [
      'loop',
      TimeoutError,
      /ccm_instance_metadata did not finish within 400 ms; its instance is being terminated/,
      'timeout',
    ],
  ] as const)(
    '%s: fails clearly, loses only its instance, and the next call succeeds on a fresh one',
    async (fault, type, message, cause) => {
      await callsOnInstance();
      expect(await callsOnInstance()).toBeGreaterThanOrEqual(2);
      const restartsBefore = await metric('wasm_ccm_plugin_instance_restarts_total', {
        plugin: 'faulty',
        reason: cause,
      });
      const started = performance.now();
      const err = await metadataError(fault);
      expect(err).toBeInstanceOf(type);
      expect(err.message).toMatch(message);
      expect(err.message.startsWith('faulty.instanceMetadata: ')).toBe(true);
      if (fault === 'loop') expect(performance.now() - started).toBeLessThan(1500);
      expect(await callsOnInstance()).toBe(1);
      expect((await instances.instanceMetadata(node('ok'))).region).toBe('cluster:test-cluster'); // initialized too
      await expect
        .poll(() => metric('wasm_ccm_plugin_instance_restarts_total', { plugin: 'faulty', reason: cause }))
        .toBe(restartsBefore + 1);
    },
  );

  // Faults in the answer only: the instance is healthy and keeps serving (its call count goes on).
  it.each([
    ['garbage', /the plugin's output is not JSON .*"this is not JSON \{"/],
    ['invalid-utf8', /the plugin's output is not UTF-8 \(4 bytes\)/],
    ['schema', /does not match the ABI: ok\.providerID: expected string, got 42/],
    ['nonzero', /ccm_instance_metadata returned 3/],
    ['no-output', /the export returned 0 without setting an output/],
    ['elsewhere', /ImplementedElsewhere is not an answer instanceMetadata may give/],
  ])('%s: is an Internal error and the same instance serves on', async (fault, message) => {
    const before = await callsOnInstance();
    const err = await metadataError(fault);
    expect(err).toBeInstanceOf(InternalError);
    expect(err.message).toMatch(message);
    expect(await callsOnInstance()).toBe(before + 2);
  });

  it('refuses an input above the limit without bothering the plugin', async () => {
    const big = { ...node('ok'), labels: { blob: 'x'.repeat(70 * 1024) } };
    const before = await callsOnInstance();
    await expect(instances.instanceMetadata(big)).rejects.toThrow(/input of \d+ bytes is above the limit of 65536/);
    // Under the limit in UTF-16 units, over it in UTF-8 bytes: caught once written into the channel.
    const wide = { ...node('ok'), labels: { blob: 'é'.repeat(40 * 1024) } };
    const bytes = Buffer.byteLength(JSON.stringify({ node: wide }));
    await expect(instances.instanceMetadata(wide)).rejects.toThrow(
      `input of ${bytes} bytes is above the limit of 65536`,
    );
    expect(await callsOnInstance()).toBe(before + 1);
  });

  it('maps plugin errors to the named errors', async () => {
    const retry = await metadataError('retry');
    expect(retry).toBeInstanceOf(RetryError);
    expect((retry as RetryError).retryAfterSeconds).toBe(7);
    expect(await metadataError('notfound')).toBeInstanceOf(InstanceNotFoundError);
    const invalid = await metadataError('invalid');
    expect(invalid).toBeInstanceOf(InvalidError);
    expect(invalid.message).toBe('faulty.instanceMetadata: annotation example.com/size: not a number');
  });

  it('forwards plugin logs tagged with plugin and method, and caps them per call', async () => {
    await instances.instanceMetadata(node('log'));
    await expect.poll(() => records.filter((r) => r.fields.source === 'kernel').length).toBeGreaterThan(0);
    const fromPlugin = records.find((r) => r.message === 'hello from the plugin ✓');
    expect(fromPlugin).toMatchObject({
      level: 'warn',
      fields: { plugin: 'faulty', method: 'instanceMetadata', fixture: 'yes' },
    });
    expect(records.find((r) => r.message === 'kernel log line')).toMatchObject({
      level: 'info',
      fields: { plugin: 'faulty' },
    });

    const before = records.length;
    await instances.instanceMetadata(node('log-flood'));
    await expect.poll(() => records.some((r) => r.message.includes('dropped 900 log records'))).toBe(true);
    expect(records.slice(before).filter((r) => r.message.startsWith('line ')).length).toBe(100);
  });

  it('counts calls, errors by code and durations per method', async () => {
    const calls = await metric('wasm_ccm_plugin_calls_total', { plugin: 'faulty', method: 'instanceMetadata' });
    await metadataError('notfound');
    await instances.instanceMetadata(node('ok'));
    expect(await metric('wasm_ccm_plugin_calls_total', { plugin: 'faulty', method: 'instanceMetadata' })).toBe(
      calls + 2,
    );
    expect(
      await metric('wasm_ccm_plugin_call_errors_total', {
        plugin: 'faulty',
        method: 'instanceMetadata',
        code: 'InstanceNotFound',
      }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      await metric('wasm_ccm_plugin_call_errors_total', {
        plugin: 'faulty',
        method: 'instanceMetadata',
        code: 'Timeout',
      }),
    ).toBe(1);
    const text = await registry.metrics();
    expect(text).toMatch(
      /wasm_ccm_plugin_call_duration_seconds_count\{provider="faulty",plugin="faulty",method="instanceMetadata"\} \d+/,
    );
  });

  it('queues calls beyond the pool size', async () => {
    // Pool size 1: two slow calls run one after the other (each reports when it ran, in epoch ms).
    const answers = await Promise.all([
      instances.instanceMetadata(node('slow')),
      instances.instanceMetadata(node('slow')),
    ]);
    const [first, second] = answers
      .map((a) => a.region.split('-').map(Number))
      .sort((x, y) => (x[0] ?? 0) - (y[0] ?? 0));
    expect(second?.[0]).toBeGreaterThanOrEqual(first?.[1] ?? Infinity);
  });
});
