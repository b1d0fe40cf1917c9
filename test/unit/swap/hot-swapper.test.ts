// HotSwapper: each revision is judged (pin, signature, load, providerName, capabilities) and only a candidate that
// passes replaces the plugin; a refused one leaves the current plugin serving and says why (event, log, metric).
import { generateKeyPairSync, sign } from 'node:crypto';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { HotSwapper, type HotSwapperOptions } from '../../../host/src/plugin/swap/hot-swapper.ts';
import { createSwapMetrics } from '../../../host/src/plugin/swap/swap-metrics.ts';
import {
  eventLog,
  fakeLoader,
  type FakeProvider,
  ManualSource,
  moduleOf,
  node,
  providerConfig,
  service,
  sha256,
} from './fakes.ts';
import { keptList } from '../../../host/src/abi/index.ts';

const vendor = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const signed = (bytes: Uint8Array, key = vendor.privateKey): string => sign(null, bytes, key).toString('base64');

type SetupOptions = Partial<HotSwapperOptions> & { loader?: ReturnType<typeof fakeLoader> };

async function setup(overrides: SetupOptions = {}) {
  const registry = new Registry();
  const events = eventLog();
  const providers = new Map<string, FakeProvider>();
  const load = overrides.loader ?? fakeLoader({ providers });
  const source = (overrides.source as ManualSource | undefined) ?? new ManualSource(moduleOf('1.0.0'));
  const swapper = await HotSwapper.start({
    config: providerConfig(),
    source,
    load,
    events,
    metrics: createSwapMetrics(registry),
    logger: silentLogger,
    ...overrides,
  });
  /** The sample of `name` (a counter, or a histogram's _count) whose labels include `labels`. */
  const metric = async (name: string, labels: Record<string, string>): Promise<number> => {
    const text = (await registry.getSingleMetricAsString(name)) ?? '';
    const sample = name.endsWith('_seconds') ? `${name}_count` : name;
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${sample}{`)) continue;
      if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
    }
    return 0;
  };
  return { swapper, source, events: events.events, load, providers, registry, metric };
}

async function served(swapper: HotSwapper, nodeName = 'n'): Promise<string | undefined> {
  return (await swapper.provider.instancesV2()?.instanceMetadata(node(nodeName)))?.instanceType;
}

describe('HotSwapper', () => {
  it('applies a good candidate: new calls on it, the old one closed, event and metric recorded', async () => {
    const { swapper, source, events, providers, metric } = await setup();
    expect(await served(swapper)).toBe('1.0.0');
    source.push(moduleOf('2.0.0'));
    await swapper.idle();
    expect(await served(swapper)).toBe('2.0.0');
    await new Promise((r) => setTimeout(r, 5));
    expect(providers.get('1.0.0')?.closed).toBe(true);
    expect(events).toEqual([expect.objectContaining({ type: 'Normal', reason: 'PluginSwapped', object: 'plugin' })]);
    expect(events[0]?.message).toMatch(/^Provider fake now runs fake 2\.0\.0 \(sha256 [0-9a-f]{12}\), was 1\.0\.0/);
    expect(await metric('wasm_ccm_plugin_swaps_total', { provider: 'fake', result: 'applied' })).toBe(1);
    expect(
      await metric('wasm_ccm_plugin_swap_duration_seconds', { provider: 'fake', result: 'applied' }),
    ).toBeGreaterThan(0);
    const status = swapper.status();
    expect(status).toMatchObject({
      name: 'fake',
      version: '2.0.0',
      sha256: sha256(moduleOf('2.0.0')),
      swaps: { applied: 1, rejected: 0 },
      lastRejected: null,
      serves: ['instancesV2', 'loadBalancer'],
    });
    await swapper.stop();
    expect(providers.get('2.0.0')?.closed).toBe(true);
    expect(source.stopped).toBe(true);
  });

  it.each<[string, SetupOptions, () => [Uint8Array, string | undefined], RegExp]>([
    [
      'a digest other than the pinned one',
      { config: providerConfig({ sha256: sha256(moduleOf('1.0.0')) }) },
      () => [moduleOf('2.0.0'), undefined],
      /^sha256 [0-9a-f]{64} does not match the pinned [0-9a-f]{64}$/,
    ],
    [
      'a module without a signature when one is required',
      { config: providerConfig({ signature: { publicKey: vendor.publicKey, signature: undefined } }) },
      () => [moduleOf('2.0.0'), undefined],
      /^unsigned: a signature is required and none came with the module \(key "fake\.wasm\.sig"\)$/,
    ],
    [
      'a module signed by another key',
      { config: providerConfig({ signature: { publicKey: vendor.publicKey, signature: undefined } }) },
      () => [moduleOf('2.0.0'), signed(moduleOf('2.0.0'), stranger.privateKey)],
      /^signature: Ed25519 signature does not match the module/,
    ],
    [
      'a module whose load fails (trapping ccm_initialize)',
      { loader: fakeLoader({ fail: { '2.0.0': 'ccm_initialize failed: wasm trap: unreachable' } }) },
      () => [moduleOf('2.0.0'), undefined],
      /^cannot load plugin: ccm_initialize failed: wasm trap: unreachable$/,
    ],
    [
      'a module naming another provider',
      {},
      () => [moduleOf('2.0.0', 'other'), undefined],
      /^it describes itself as provider "other", but "fake" is serving/,
    ],
  ])('refuses %s and keeps the current plugin serving', async (_what, overrides, next, reason) => {
    const first = moduleOf('1.0.0');
    const needsSig = overrides.config?.signature !== undefined;
    const source = new ManualSource(first, needsSig ? signed(first) : undefined);
    const { swapper, events, metric } = await setup({ ...overrides, source });
    const [bytes, signature] = next();
    source.push(bytes, signature);
    await swapper.idle();
    expect(await served(swapper)).toBe('1.0.0');
    const status = swapper.status();
    expect(status.version).toBe('1.0.0');
    expect(status.lastRejected?.reason).toMatch(reason);
    expect(status.lastRejected?.sha256).toBe(sha256(bytes));
    expect(Date.parse(status.lastRejected?.time ?? '')).toBeGreaterThan(Date.now() - 5_000);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Warning', reason: 'PluginRejected', object: 'plugin' });
    expect(events[0]?.message).toContain('still serving 1.0.0');
    expect(await metric('wasm_ccm_plugin_swaps_total', { provider: 'fake', result: 'rejected' })).toBe(1);
    expect(await metric('wasm_ccm_plugin_swaps_total', { provider: 'fake', result: 'applied' })).toBe(0);
    await swapper.stop();
  });

  it('accepts a module signed by the vendor key, shipped with its .sig', async () => {
    const first = moduleOf('1.0.0');
    const source = new ManualSource(first, signed(first));
    const { swapper } = await setup({
      source,
      config: providerConfig({ signature: { publicKey: vendor.publicKey, signature: undefined } }),
    });
    source.push(moduleOf('2.0.0'), signed(moduleOf('2.0.0')));
    await swapper.idle();
    expect(await served(swapper)).toBe('2.0.0');
    await swapper.stop();
  });

  it('refuses a candidate missing a capability the provider serves, and closes it', async () => {
    const providers = new Map<string, FakeProvider>();
    const wide = fakeLoader({ providers });
    const narrow = fakeLoader({ capabilities: ['instancesV2'], providers });
    // Version 1 declares instancesV2 and loadBalancer (so the provider serves both); version 2 drops loadBalancer.
    const loader = Object.assign(
      (bytes: Uint8Array, label: string) =>
        new TextDecoder().decode(bytes).endsWith('@2.0.0') ? narrow(bytes, label) : wide(bytes, label),
      { loaded: [] },
    );
    const { swapper, source } = await setup({ loader });
    source.push(moduleOf('2.0.0'));
    await swapper.idle();
    expect(swapper.status().lastRejected?.reason).toBe(
      'it does not declare loadBalancer, which provider fake serves (it declares: instancesV2)',
    );
    expect(providers.get('2.0.0')?.closed).toBe(true);
    expect(await served(swapper)).toBe('1.0.0');
    await swapper.stop();
  });

  it('ignores the module already serving and a module already refused (no second event)', async () => {
    const loader = fakeLoader({ fail: { bad: 'broken' } });
    const { swapper, source, events } = await setup({ loader });
    source.push(moduleOf('1.0.0'));
    source.push(moduleOf('bad'));
    await swapper.idle();
    source.push(moduleOf('bad'));
    await swapper.idle();
    expect(loader.loaded).toEqual(['1.0.0', 'bad']);
    expect(events.map((e) => e.reason)).toEqual(['PluginRejected']);
    expect(swapper.status().swaps).toEqual({ applied: 0, rejected: 1 });
  });

  it('gives a readable reason when the loader throws something that is not an Error', async () => {
    const fake = fakeLoader();
    const loader = Object.assign(
      async (bytes: Uint8Array, label: string) => {
        if (new TextDecoder().decode(bytes).endsWith('@2.0.0')) throw { code: 'Throttled', detail: 'try later' };
        return fake(bytes, label);
      },
      { loaded: fake.loaded },
    );
    const { swapper, source, events } = await setup({ loader });
    source.push(moduleOf('2.0.0'));
    await swapper.idle();
    expect(swapper.status().lastRejected?.reason).toBe('{"code":"Throttled","detail":"try later"}');
    expect(events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'PluginRejected' })]);
    expect(events[0]?.message).toContain(': {"code":"Throttled","detail":"try later"}; still serving 1.0.0');
    await swapper.stop();
  });

  it('judges only the newest of the revisions that arrive during a swap', async () => {
    const loader = fakeLoader({ delayMs: 30 });
    const { swapper, source } = await setup({ loader });
    source.push(moduleOf('2.0.0'));
    source.push(moduleOf('3.0.0'));
    source.push(moduleOf('4.0.0'));
    await swapper.idle();
    expect(loader.loaded).toEqual(['1.0.0', '2.0.0', '4.0.0']);
    expect(swapper.status().version).toBe('4.0.0');
    expect(await served(swapper)).toBe('4.0.0');
  });

  it('fails to start on a bad first module, naming the provider and the source', async () => {
    await expect(setup({ loader: fakeLoader({ fail: { '1.0.0': 'not a WebAssembly module' } }) })).rejects.toThrow(
      'provider fake (manual): cannot load plugin: not a WebAssembly module',
    );
    await expect(setup({ expectedProviderName: 'devcloud' })).rejects.toThrow(
      '--cloud-provider: "devcloud" does not match the plugin\'s provider name "fake"',
    );
  });

  it('in shadow mode compares read-only answers before switching and counts differences', async () => {
    const { swapper, source, metric } = await setup({
      config: providerConfig({ shadow: { calls: 3, seconds: 30 } }),
    });
    source.push(moduleOf('2.0.0'));
    await new Promise((r) => setTimeout(r, 10));
    // Still v1 while shadowing: controllers get v1's answers; v2 answers the same calls on the side.
    expect(await served(swapper, 'a')).toBe('1.0.0');
    const balancer = swapper.provider.loadBalancer();
    expect((await balancer?.getLoadBalancer('k', service('s')))?.status.ingress[0]?.ip).toBe('1.0.0');
    expect(swapper.status().version).toBe('1.0.0');
    await balancer?.ensureLoadBalancer('k', service('s'), keptList([])); // not read-only: not mirrored
    await served(swapper, 'b');
    await swapper.idle();
    expect(swapper.status().version).toBe('2.0.0');
    // The fakes put their version in instanceType and the LB IP: every comparison differs.
    expect(swapper.status().lastShadow).toMatchObject({ compared: 3, differences: 3 });
    expect(swapper.status().lastShadow?.examples[0]).toMatchObject({ method: 'instanceMetadata', object: 'a' });
    expect(
      await metric('wasm_ccm_plugin_shadow_comparisons_total', { method: 'getLoadBalancer', result: 'different' }),
    ).toBe(1);
    await swapper.stop();
  });
});
