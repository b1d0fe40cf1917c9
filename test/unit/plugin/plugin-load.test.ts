// Loading: every check before a plugin serves, and what the controllers get when it does.
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../host/src/plugin/module/plugin-source.ts';
import { PluginLoadError, WasmProvider } from '../../../host/src/plugin/index.ts';
import { buildFixture } from '../../../lab/plugins/index.ts';
import { node } from './support/nodes.ts';
import { buildModule } from './support/wasm-builder.ts';

const loaded: WasmProvider[] = [];
afterAll(async () => {
  await Promise.all(loaded.map((p) => p.close()));
});

async function load(options: Parameters<typeof WasmProvider.load>[0]): Promise<WasmProvider> {
  const provider = await WasmProvider.load({ pool: { size: 1 }, ...options });
  loaded.push(provider);
  return provider;
}

async function loadError(options: Parameters<typeof WasmProvider.load>[0]): Promise<Error> {
  try {
    await load(options);
  } catch (err) {
    return err as Error;
  }
  throw new Error('the plugin loaded');
}

describe('loading a plugin', () => {
  it('exposes the declared capabilities only, and what describe said', async () => {
    const provider = await load({
      source: { bytes: await buildFixture('faulty'), name: 'faulty.wasm' },
      cloudConfig: 'region = x',
    });
    expect(provider.providerName()).toBe('faulty');
    expect(provider.hasClusterID()).toBe(true);
    expect(provider.instancesV2()).toBeDefined();
    expect([
      provider.instances(),
      provider.loadBalancer(),
      provider.routes(),
      provider.zones(),
      provider.clusters(),
    ]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(provider.plugin.description).toMatchObject({ abi: '1.0', version: '0.0.1', capabilities: ['instancesV2'] });
    expect((await provider.instancesV2()?.instanceMetadata(node('ok')))?.region).toBe('cluster:kubernetes');
  });

  it('accepts any minor of ABI 1 and a plugin without capabilities', async () => {
    const provider = await load({ source: { bytes: await buildFixture('echo') } });
    expect(provider.providerName()).toBe('echo');
    expect(provider.instancesV2()).toBeUndefined();
  });

  it('hands the input over in one ccm_input_read call or through the kernel 8 bytes at a time, alike', async () => {
    const provider = await load({ source: { bytes: await buildFixture('echo') } });
    const text = `{"n":"zürich ☁ 🚀"}`.repeat(5000) + 'tail';
    for (const input of [new TextEncoder().encode(text), new Uint8Array(0), Uint8Array.of(7, 8, 9)]) {
      for (const exportName of ['bench_echo', 'bench_echo_kernel']) {
        expect(await provider.plugin.callExport(exportName, input)).toEqual(input);
      }
    }
  });

  it('verifies a pinned digest before anything else', async () => {
    const bytes = await buildFixture('echo');
    const pinned = await load({ source: { bytes }, sha256: sha256Hex(bytes) });
    expect(pinned.plugin.sha256).toBe(sha256Hex(bytes));
    const err = await loadError({ source: { bytes }, sha256: sha256Hex(new Uint8Array(1)) });
    expect(err.message).toMatch(/SHA-256 mismatch/);
  });

  it('refuses a plugin that speaks another ABI major', async () => {
    const err = await loadError({ source: { bytes: await buildFixture('abi-major-2'), name: 'future.wasm' } });
    expect(err).toBeInstanceOf(PluginLoadError);
    expect(err.message).toBe(
      'cannot load plugin future.wasm: it speaks provider ABI 2.0; this host speaks ABI 1.x only',
    );
  });

  it('refuses a plugin naming a Node field that does not exist for its load balancers', async () => {
    const err = await loadError({ source: { bytes: await buildFixture('bad-node-fields'), name: 'typo.wasm' } });
    expect(err).toBeInstanceOf(PluginLoadError);
    expect(err.message).toBe(
      'cannot load plugin typo.wasm: ccm_describe: loadBalancerNodeFields names "providerId", not a Node field ' +
        '(name, uid, providerID, labels, annotations, addresses)',
    );
  });

  it('refuses a plugin missing an export its capabilities need', async () => {
    const err = await loadError({ source: { bytes: await buildFixture('missing-export'), name: 'partial.wasm' } });
    expect(err.message).toContain(
      'it declares capabilities whose exports are missing: loadBalancer needs ccm_get_load_balancer,',
    );
    expect(err.message).toContain('ccm_ensure_load_balancer_deleted');
  });

  it('stops start-up with the plugin’s own message when initialize fails', async () => {
    const err = await loadError({ source: { bytes: await buildFixture('init-fails'), name: 'picky.wasm' } });
    expect(err).toBeInstanceOf(PluginLoadError);
    expect(err.message).toMatch(/ccm_initialize failed: .*cloud config: region is required/);
  });

  it('refuses modules with WASI, env or unknown imports before compiling them', async () => {
    const wasi = buildModule({
      imports: [
        { module: 'wasi_snapshot_preview1', name: 'environ_get', func: { params: ['i32', 'i32'], results: ['i32'] } },
      ],
    });
    expect((await loadError({ source: { bytes: wasi, name: 'wasi.wasm' } })).message).toMatch(
      /cannot load plugin wasi\.wasm: plugin imports what wasm-ccm does not provide: wasi_snapshot_preview1\.environ_get: WASI is not available/,
    );
    const env = buildModule({ imports: [{ module: 'env', name: 'abort', func: { params: ['i32'], results: [] } }] });
    expect((await loadError({ source: { bytes: env } })).message).toContain('--use abort=');
  });

  it('refuses a module that exports no ABI at all, or is not Wasm', async () => {
    expect(
      (await loadError({ source: { bytes: buildModule({ memory: { min: 1 } }), name: 'empty.wasm' } })).message,
    ).toBe('cannot load plugin empty.wasm: it does not export ccm_describe, ccm_initialize (every plugin must)');
    expect((await loadError({ source: { bytes: new TextEncoder().encode('<html>') } })).message).toMatch(
      /not a WebAssembly module/,
    );
  });

  it('fails a call in flight cleanly when the plugin is shut down under it', async () => {
    const provider = await load({ source: { bytes: await buildFixture('faulty') } });
    const outcome = provider
      .instancesV2()
      ?.instanceMetadata(node('slow'))
      .then(
        () => new Error('the call succeeded'),
        (err: unknown) => err,
      );
    await new Promise((r) => setTimeout(r, 30));
    const started = performance.now();
    await provider.close();
    expect(String(await outcome)).toMatch(
      /InternalError: .*the plugin's worker died during ccm_instance_metadata: pool closed/,
    );
    expect(performance.now() - started).toBeLessThan(100);
    await expect(provider.instancesV2()?.instanceExists(node('ok'))).rejects.toThrow(/shut down/);
  });

  it('refuses a module whose memory must start above the cap', async () => {
    const big = buildModule({ memory: { min: 100 } });
    const err = await loadError({ source: { bytes: big }, limits: { memoryBytes: 2 * 1024 * 1024 } });
    expect(err.message).toMatch(/needs 6\.25 MiB of memory at start, above the cap of 2 MiB/);
  });
});
