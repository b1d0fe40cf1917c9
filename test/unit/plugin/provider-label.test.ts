// Two providers served by one module (the same plugin under two configuration names) keep their own
// wasm_ccm_plugin_* series: the `provider` label is the configuration's name, `plugin` the module's.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstancesV2 } from '../../../host/src/cloudprovider/index.ts';
import { WasmProvider } from '../../../host/src/plugin/index.ts';
import { buildFixture } from '../../../lab/plugins/index.ts';
import { node } from './support/nodes.ts';

const registry = new Registry();
const providers: WasmProvider[] = [];

beforeAll(async () => {
  const bytes = await buildFixture('faulty');
  for (const provider of ['east', 'west']) {
    providers.push(
      await WasmProvider.load({ source: { bytes, name: 'faulty.wasm' }, pool: { size: 1 }, registry, provider }),
    );
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
});

describe('the provider label', () => {
  it('separates the calls of two providers served by the same module', async () => {
    const [east, west] = providers.map((p) => p.instancesV2() as InstancesV2);
    await east?.instanceMetadata(node('ok'));
    await west?.instanceMetadata(node('ok'));
    await west?.instanceMetadata(node('ok'));
    const calls = (await registry.getMetricsAsJSON()).find((m) => m.name === 'wasm_ccm_plugin_calls_total');
    const byProvider = Object.fromEntries(
      (calls?.values ?? [])
        .filter((v) => v.labels.method === 'instanceMetadata')
        .map((v) => [`${v.labels.provider}/${v.labels.plugin}`, v.value]),
    );
    expect(byProvider).toEqual({ 'east/faulty': 1, 'west/faulty': 2 });
  });
});
