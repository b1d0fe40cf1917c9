// Gzipped modules through the hot swapper: decompressed before every check, under limits.maxModuleMB; the pin and
// the signature are over the decompressed module; a bomb, a `.gz` key without gzip data and a signature over the
// compressed bytes are refused, and the current plugin keeps serving.
import { generateKeyPairSync, sign } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../host/src/log/logger.ts';
import type { ProviderConfig } from '../../../host/src/plugin/config/types.ts';
import { HotSwapper } from '../../../host/src/plugin/swap/hot-swapper.ts';
import { createSwapMetrics } from '../../../host/src/plugin/swap/swap-metrics.ts';
import { eventLog, fakeLoader, ManualSource, moduleOf, node, providerConfig, sha256 } from './fakes.ts';

const vendor = generateKeyPairSync('ed25519');
const signed = (bytes: Uint8Array): string => sign(null, bytes, vendor.privateKey).toString('base64');
const gz = (bytes: Uint8Array): Uint8Array => new Uint8Array(gzipSync(bytes, { level: 9 }));
const GZ_KEY = { kind: 'configMap', namespace: 'kube-system', name: 'plugin', key: 'fake.wasm.gz' } as const;

async function setup(config: Partial<ProviderConfig>, first: Uint8Array, signature?: string) {
  const events = eventLog();
  const loaded: number[] = [];
  const loader = fakeLoader();
  const source = new ManualSource(first, signature);
  const swapper = await HotSwapper.start({
    config: providerConfig({ source: GZ_KEY, ...config }),
    source,
    load: (bytes, label) => {
      loaded.push(bytes.byteLength);
      return loader(bytes, label);
    },
    events,
    metrics: createSwapMetrics(new Registry()),
    logger: silentLogger,
  });
  const served = async (): Promise<string | undefined> =>
    (await swapper.provider.instancesV2()?.instanceMetadata(node('n')))?.instanceType;
  return { swapper, source, events: events.events, loaded, served };
}

describe('gzipped modules', () => {
  it('decompress before the pin and the load, and swap like any module', async () => {
    const v1 = moduleOf('1.0.0');
    const { swapper, source, loaded, served } = await setup({ sha256: undefined }, gz(v1));
    expect(await served()).toBe('1.0.0');
    source.push(gz(moduleOf('2.0.0')));
    await swapper.idle();
    expect(await served()).toBe('2.0.0');
    expect(swapper.status().sha256).toBe(sha256(moduleOf('2.0.0')));
    expect(loaded).toEqual([v1.byteLength, moduleOf('2.0.0').byteLength]);
    await swapper.stop();
  });

  it('check the pin against the decompressed module', async () => {
    const v1 = moduleOf('1.0.0');
    const { swapper, served } = await setup({ sha256: sha256(v1) }, gz(v1));
    expect(await served()).toBe('1.0.0');
    await swapper.stop();
  });

  it('verify a signature over the decompressed module, and name one over the compressed bytes', async () => {
    const v1 = moduleOf('1.0.0');
    const policy = { signature: { publicKey: vendor.publicKey, signature: undefined } };
    const { swapper, source, events, served } = await setup(policy, gz(v1), signed(v1));
    const v2 = gz(moduleOf('2.0.0'));
    source.push(v2, signed(v2));
    await swapper.idle();
    expect(await served()).toBe('1.0.0');
    expect(swapper.status().lastRejected?.reason).toBe(
      'signature: the signature is over the gzip-compressed bytes; sign the decompressed module (the .wasm before gzip)',
    );
    source.push(v2, signed(moduleOf('2.0.0')));
    await swapper.idle();
    expect(await served()).toBe('2.0.0');
    expect(events.map((e) => e.reason)).toEqual(['PluginRejected', 'PluginSwapped']);
    await swapper.stop();
  });

  it('refuse a bomb at limits.maxModuleMB, once, and keep the current plugin serving', async () => {
    const { swapper, source, events, loaded, served } = await setup(
      { limits: { callTimeoutMs: 1_000, memoryLimitMB: 64, poolSize: 1, maxModuleMB: 1 } },
      gz(moduleOf('1.0.0')),
    );
    const bomb = gz(new Uint8Array(64 * 1024 * 1024));
    source.push(bomb);
    await swapper.idle();
    source.push(bomb);
    await swapper.idle();
    expect(await served()).toBe('1.0.0');
    expect(loaded).toHaveLength(1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Warning', reason: 'PluginRejected' });
    expect(events[0]?.message).toContain(
      'fake.wasm.gz decompresses to more than 1 MiB (limits.maxModuleMB); refused, decompression stopped at the cap',
    );
    expect(swapper.status().lastRejected?.sha256).toBe(sha256(bomb));
    await swapper.stop();
  });

  it('refuse a .gz key that holds no gzip data', async () => {
    const { swapper, source, served } = await setup({}, gz(moduleOf('1.0.0')));
    source.push(moduleOf('2.0.0'));
    await swapper.idle();
    expect(await served()).toBe('1.0.0');
    expect(swapper.status().lastRejected?.reason).toBe(
      'fake.wasm.gz ends in .gz but does not start with the gzip magic 1f 8b',
    );
    await swapper.stop();
  });
});
