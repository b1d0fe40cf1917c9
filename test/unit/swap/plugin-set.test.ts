// PluginSet: every configured provider behind its own swapper, file sources wired to kubelet-style volumes, and the
// service controller's balancer routing each Service by loadBalancerClass.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../host/src/log/logger.ts';
import type { PluginConfig } from '../../../host/src/plugin/config/types.ts';
import { PluginSet } from '../../../host/src/plugin/swap/plugin-set.ts';
import { fakeLoader, type FakeProvider, moduleOf, providerConfig, service } from './fakes.ts';
import { kubeletWrite } from '../../support/kubelet-writer.ts';
import { keptList } from '../../../host/src/abi/index.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function volume(content: Uint8Array): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-set-'));
  dirs.push(dir);
  await kubeletWrite(dir, { 'p.wasm': content });
  return dir;
}

function twoProviders(main: string, internal: string): PluginConfig {
  return {
    providers: [
      providerConfig({ name: 'main', source: { kind: 'file', path: join(main, 'p.wasm') } }),
      providerConfig({ name: 'internal', source: { kind: 'file', path: join(internal, 'p.wasm') } }),
    ],
    defaultProvider: 'main',
    loadBalancerClasses: new Map([['example.com/internal', 'internal']]),
  };
}

describe('PluginSet', () => {
  it('routes classless Services to the default provider and a configured class to its provider', async () => {
    const providers = new Map<string, FakeProvider>();
    const set = await PluginSet.start({
      config: twoProviders(await volume(moduleOf('main-1', 'dc')), await volume(moduleOf('int-1', 'dc'))),
      client: undefined,
      cloudProvider: 'dc',
      clusterName: 'k',
      defaultPoolSize: 1,
      logger: silentLogger,
      registry: undefined,
      loader: () => fakeLoader({ providers }),
    });
    try {
      const lb = set.loadBalancing();
      expect(lb?.classes).toEqual(new Set(['example.com/internal']));
      const ip = async (cls: string) =>
        (await lb?.balancer.ensureLoadBalancer('k', service('s', cls), keptList([])))?.ingress[0]?.ip;
      expect(await ip('')).toBe('main-1');
      expect(await ip('example.com/internal')).toBe('int-1');
      await expect(ip('example.com/other')).rejects.toThrow('no provider serves loadBalancerClass "example.com/other"');
      expect(set.defaultProvider.instancesV2()).toBeDefined();
      expect(set.status().map((s) => [s.name, s.version, s.default, s.loadBalancerClasses])).toEqual([
        ['main', 'main-1', true, []],
        ['internal', 'int-1', false, ['example.com/internal']],
      ]);
      expect(set.ready()).toBeUndefined();
    } finally {
      await set.stop();
    }
    expect([...providers.values()].every((p) => p.closed)).toBe(true);
  });

  it('swaps a provider when kubelet updates its volume, without touching the other', async () => {
    const mainDir = await volume(moduleOf('main-1', 'dc'));
    const set = await PluginSet.start({
      config: twoProviders(mainDir, await volume(moduleOf('int-1', 'dc'))),
      client: undefined,
      cloudProvider: 'dc',
      clusterName: 'k',
      defaultPoolSize: 1,
      logger: silentLogger,
      registry: undefined,
      loader: () => fakeLoader(),
    });
    try {
      const { swappedAt } = await kubeletWrite(mainDir, { 'p.wasm': moduleOf('main-2', 'dc') });
      const deadline = Date.now() + 2_000;
      while (set.swapper('main').current.version !== 'main-2' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(Date.now() - swappedAt).toBeLessThan(1_000);
      const lb = set.loadBalancing();
      expect((await lb?.balancer.ensureLoadBalancer('k', service('s'), keptList([])))?.ingress[0]?.ip).toBe('main-2');
      expect(set.swapper('internal').current.version).toBe('int-1');
    } finally {
      await set.stop();
    }
  });

  it('refuses to start when one provider cannot load, stopping the ones that did', async () => {
    const providers = new Map<string, FakeProvider>();
    const start = PluginSet.start({
      config: twoProviders(await volume(moduleOf('main-1', 'dc')), await volume(moduleOf('broken', 'dc'))),
      client: undefined,
      cloudProvider: 'dc',
      clusterName: 'k',
      defaultPoolSize: 1,
      logger: silentLogger,
      registry: undefined,
      loader: () => fakeLoader({ providers, fail: { broken: 'ccm_initialize failed' }, delayMs: 20 }),
    });
    await expect(start).rejects.toThrow(
      /^provider internal \(file .*p\.wasm\): cannot load plugin: ccm_initialize failed$/,
    );
    expect(providers.get('main-1')?.closed).toBe(true);
  });

  it('checks the default provider against --cloud-provider', async () => {
    const start = PluginSet.start({
      config: { ...twoProviders(await volume(moduleOf('m', 'dc')), await volume(moduleOf('i', 'dc'))) },
      client: undefined,
      cloudProvider: 'aws',
      clusterName: 'k',
      defaultPoolSize: 1,
      logger: silentLogger,
      registry: undefined,
      loader: () => fakeLoader(),
    });
    await expect(start).rejects.toThrow('--cloud-provider: "aws" does not match the plugin\'s provider name "dc"');
  });
});
