import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, validateEnvelope } from '../../../host/src/abi/index.ts';
import { buildPlugin, discoverPlugins } from '../../../scripts/build-plugins.ts';
import { forbiddenImports, listImports } from '../../../plugin-sdk/tools/imports.ts';
import { load, type TestPlugin } from '../../../lab/plugins/index.ts';

let example: TestPlugin;
let wasm: Uint8Array;
beforeAll(async () => {
  const plugin = discoverPlugins().find((p) => p.name === 'example');
  if (!plugin) throw new Error('plugins/example is not discovered by build-plugins');
  const built = await buildPlugin(plugin);
  wasm = new Uint8Array(readFileSync(built.outFile));
  example = await load(wasm);
}, 120_000);
afterAll(async () => {
  await example?.plugin.close();
});

const config = {
  instances: [
    {
      id: 'i-1',
      nodeName: 'node-1',
      instanceType: 'm1.small',
      zone: 'eu-1a',
      region: 'eu-1',
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'node-1' },
      ],
      labels: { 'example.com/rack': 'r7' },
    },
    { id: 'i-2', shutdown: true },
  ],
};
const node = (name: string, providerID = '') => ({
  name,
  uid: name,
  providerID,
  labels: {},
  annotations: {},
  addresses: [],
});

describe('plugins/example', () => {
  it('builds to plugins/example/build/example.wasm importing only what the host provides', () => {
    expect(forbiddenImports(listImports(wasm))).toEqual([]);
    // Every method of the ABI is exported (unimplemented ones answer NotImplemented), and nothing else but memory.
    const exported = WebAssembly.Module.exports(new WebAssembly.Module(wasm)).map((e) => e.name);
    expect(exported.sort()).toEqual([...Object.values(METHODS).map((m) => m.exportName), 'memory'].sort());
  });

  it('serves instancesV2 from its config, with answers the host accepts', async () => {
    const init = JSON.parse(
      await example.call('ccm_initialize', { cloudConfig: JSON.stringify(config), clusterName: 'c' }),
    );
    expect(init).toEqual({ ok: {} });
    expect(example.host.logs).toEqual([
      { level: 'info', message: 'example provider initialized', fields: { instances: '2', cluster: 'c' } },
    ]);

    const meta = JSON.parse(await example.call('ccm_instance_metadata', { node: node('node-1') }));
    expect(validateEnvelope('instanceMetadata', meta).ok).toBe(true);
    expect(meta).toEqual({
      ok: {
        providerID: 'example://i-1',
        instanceType: 'm1.small',
        nodeAddresses: config.instances[0]!.addresses,
        zone: 'eu-1a',
        region: 'eu-1',
        additionalLabels: { 'example.com/rack': 'r7' },
      },
    });
    // The provider ID wins over the node name, as upstream.
    const byId = JSON.parse(await example.call('ccm_instance_shutdown', { node: node('whatever', 'example://i-2') }));
    expect(byId).toEqual({ ok: { shutdown: true } });
    expect(JSON.parse(await example.call('ccm_instance_exists', { node: node('node-9') }))).toEqual({
      ok: { exists: false },
    });
    expect(JSON.parse(await example.call('ccm_instance_metadata', { node: node('node-9') }))).toEqual({
      error: { code: 'InstanceNotFound', message: 'no instance for node node-9' },
    });
  });

  it("answers the batched methods it does not override with the SDK's loop over the per-node ones", async () => {
    // Initialized by the test above (the same instance).
    const nodes = [node('node-1'), node('node-9'), node('x', 'example://i-2')];
    const none = { code: '', message: '', retryAfterSeconds: 0 };
    const exists = JSON.parse(await example.call('ccm_instance_exists_batch', { nodes }));
    expect(validateEnvelope('instanceExistsBatch', exists).ok).toBe(true);
    expect(exists).toEqual({
      ok: { results: [true, false, true].map((e) => ({ ok: { exists: e }, error: none })) },
    });
    const meta = JSON.parse(await example.call('ccm_instance_metadata_batch', { nodes }));
    expect(validateEnvelope('instanceMetadataBatch', meta).ok).toBe(true);
    expect(meta.ok.results.map((r: { ok: { providerID: string } }) => r.ok.providerID)).toEqual([
      'example://i-1',
      '',
      'example://i-2',
    ]);
    expect(meta.ok.results[1].error).toEqual({
      code: 'InstanceNotFound',
      message: 'no instance for node node-9',
      retryAfterSeconds: 0,
    });
    expect(JSON.parse(await example.call('ccm_instance_shutdown_batch', { nodes: [] }))).toEqual({
      ok: { results: [] },
    });
  });

  it("answers instanceStatusBatch with the SDK's default: exists of each node, shutdown of those that exist", async () => {
    const nodes = [node('node-1'), node('node-9'), node('x', 'example://i-2')];
    const none = { code: '', message: '', retryAfterSeconds: 0 };
    const status = JSON.parse(await example.call('ccm_instance_status_batch', { nodes }));
    expect(validateEnvelope('instanceStatusBatch', status).ok).toBe(true);
    // node-9 does not exist, so its shutdown is not asked (instanceShutdown would answer InstanceNotFound for it).
    expect(status).toEqual({
      ok: {
        results: [
          { exists: { ok: { exists: true }, error: none }, shutdown: { ok: { shutdown: false }, error: none } },
          { exists: { ok: { exists: false }, error: none }, shutdown: { ok: { shutdown: false }, error: none } },
          { exists: { ok: { exists: true }, error: none }, shutdown: { ok: { shutdown: true }, error: none } },
        ],
      },
    });
    expect(JSON.parse(await example.call('ccm_instance_status_batch', { nodes: [] }))).toEqual({
      ok: { results: [] },
    });
  });

  it('refuses a bad config with Invalid', async () => {
    const bad = { instances: [{ id: 'i-1', addresses: [{ type: 'PublicIP', address: '1.2.3.4' }] }] };
    expect(
      JSON.parse(await example.call('ccm_initialize', { cloudConfig: JSON.stringify(bad), clusterName: '' })),
    ).toEqual({
      error: {
        code: 'Invalid',
        message: 'cloud config: instances[0].addresses[0].type: unknown address type "PublicIP"',
      },
    });
    expect(JSON.parse(await example.call('ccm_initialize', { cloudConfig: '{"instances":', clusterName: '' }))).toEqual(
      {
        error: {
          code: 'Invalid',
          message: 'cloud config is not JSON: $.instances: invalid JSON: unexpected end, expected a value',
        },
      },
    );
  });
});
