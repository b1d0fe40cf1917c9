// js-sdk 1.0.3 runs out of block indices at call #16,383 unless the plugin is reset after every call; the runtime
// resets after each call, so a pool must serve far more calls than that without a restart. Also: concurrency.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InstancesV2 } from '../../../host/src/cloudprovider/index.ts';
import { WasmProvider } from '../../../host/src/plugin/index.ts';
import { buildFixture } from '../../../lab/plugins/index.ts';
import { node } from './support/nodes.ts';

let provider: WasmProvider;
const registry = new Registry();

beforeAll(async () => {
  provider = await WasmProvider.load({
    source: { bytes: await buildFixture('faulty') },
    pool: { size: 2, minInstances: 2 },
    // A thread each: the slow calls compute, and instances sharing a thread compute one at a time.
    limits: { instancesPerWorker: 1 },
    registry,
  });
}, 60_000);

afterAll(async () => {
  await provider?.close();
});

it('serves 20,000 calls in a row on one pool without losing an instance', async () => {
  const instances = provider.instancesV2() as InstancesV2;
  const ok = node('ok');
  let exists = 0;
  for (let i = 0; i < 20_000; i++) {
    if (await instances.instanceExists(ok)) exists++;
  }
  expect(exists).toBe(20_000);
  // And real answers still decode after that many calls on the same instance.
  expect((await instances.instanceMetadata(ok)).zone).toBe('zone-a');
  const metrics = await registry.getMetricsAsJSON();
  expect(metrics.find((m) => m.name === 'wasm_ccm_plugin_instance_restarts_total')?.values ?? []).toEqual([]);
  const calls = metrics
    .find((m) => m.name === 'wasm_ccm_plugin_calls_total')
    ?.values.find((v) => v.labels.method === 'instanceExists');
  expect(calls?.value).toBe(20_000);
}, 60_000);

it('runs calls in parallel on separate instances', async () => {
  const instances = provider.instancesV2() as InstancesV2;
  // Each slow call reports when it ran (epoch ms); on a pool of two they overlap.
  const [a, b] = await Promise.all([
    instances.instanceMetadata(node('slow')),
    instances.instanceMetadata(node('slow')),
  ]);
  const [startA, endA] = (a?.region ?? '').split('-').map(Number) as [number, number];
  const [startB, endB] = (b?.region ?? '').split('-').map(Number) as [number, number];
  expect(endA - startA).toBeGreaterThanOrEqual(150);
  expect(startA < endB && startB < endA).toBe(true);
});
