// Modules larger than a ConfigMap, shipped gzipped under a `.gz` key: a 3 MiB devcloud module (padded with a custom
// section) that the apiserver refuses uncompressed is hot-swapped in from ~0.9 MiB of gzip while Services keep being
// reconciled, with no failed reconcile; then a gzip bomb that fits a ConfigMap (~1 MiB expanding to 1 GiB) is
// refused at limits.maxModuleMB while the module serving keeps serving, and the CCM's memory comes back.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { memoryStats } from '../../../lab/measure/index.ts';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { gzipBomb } from '../../support/gzip-bomb.ts';
import { uniqueName } from '../../../lab/controlplane/index.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  debugPlugins,
  failedSyncs as failedSyncsIn,
  tearDownSwapTest,
  eventsAbout,
  type Kube,
  lbService,
  PLUGIN_NAMESPACE,
  prepareKube,
  putPluginConfigMap,
  type ServingCCM,
  servingVersion,
  startConfigMapSwapTest,
  waitForIngress,
} from '../../../lab/ccm/index.ts';
import { type HotswapModules, hotswapModules, paddedModule } from '../../../lab/plugins/index.ts';

const KEY = 'devcloud.wasm.gz';
const MIB = 1024 * 1024;
const SERVICES = 6;
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const gz = (b: Uint8Array): Uint8Array => new Uint8Array(gzipSync(b, { level: 9 }));

describe('gzipped plugin modules in a ConfigMap', () => {
  const info = inject('controlPlane');
  const namespace = uniqueName('hotswap-gz');
  const configMap = uniqueName('dc-gz');
  const nodeName = uniqueName('gz-node');
  const names = { namespace, nodeName, configMap };
  let kube: Kube;
  let cloud: Devcloud;
  let modules: HotswapModules;
  let big: Uint8Array;
  let env: ServingCCM;

  beforeAll(async () => {
    [kube, cloud, modules] = await Promise.all([prepareKube(info), startDevcloud(), hotswapModules()]);
    big = paddedModule(modules.v2, 3 * MIB);
    env = await startConfigMapSwapTest(info, kube, cloud, names, {
      key: KEY,
      module: gz(modules.v1),
    });
  });

  afterAll(async () => {
    const code = await tearDownSwapTest({ kube, env, cloud, ...names });
    expect(code).toBe(0);
  });

  const failedSyncs = (): Promise<number> => failedSyncsIn(kube.core, namespace);

  it('cannot ship the 3 MiB module uncompressed: the apiserver refuses the ConfigMap', async () => {
    expect(big.byteLength).toBeGreaterThan(3 * MIB - 1024);
    const refused = await putPluginConfigMap(kube.core, uniqueName('too-big'), 'devcloud.wasm', big).catch(
      (err: unknown) => err as { code?: number; body?: unknown },
    );
    expect(refused).toMatchObject({ code: expect.any(Number) });
    expect(String((refused as { body?: unknown }).body)).toMatch(/1048576|too large|Too long/i);
  });

  it('hot-swaps the 3 MiB module from ~0.9 MiB of gzip under load, with no failed reconcile', async () => {
    const names = Array.from({ length: SERVICES }, (_, i) => `web-${i}`);
    for (const name of names) await kube.core.createNamespacedService({ namespace, body: lbService(name) });
    for (const name of names) await waitForIngress(kube.core, namespace, name);

    // Load: every Service touched over and over, so reconciles are queued and running while the swap happens.
    let touching = true;
    let touches = 0;
    const load = (async () => {
      while (touching) {
        const name = names[touches % names.length]!;
        const value = { load: String(touches++) };
        await kube.core.patchNamespacedService({
          namespace,
          name,
          body: [{ op: 'add', path: '/metadata/annotations', value }],
        });
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    const shipped = gz(big);
    expect(shipped.byteLength).toBeLessThan(MIB);
    const updatedAt = Date.now();
    await putPluginConfigMap(kube.core, configMap, KEY, shipped);
    await servingVersion(env.base, 'devcloud', '2.0.0', 30_000);
    const seenMs = Date.now() - updatedAt;
    const touchesAtSwap = touches;
    await eventually('more reconciles after the swap', async () => (touches > touchesAtSwap + 20 ? true : undefined));
    touching = false;
    await load;

    const swapped = await env.ccm.waitForLog('the swap log line', (r) => r.msg === 'plugin swapped');
    expect(swapped).toMatchObject({ from: '1.0.0', to: '2.0.0', sha256: sha256(big) });
    const [status] = await debugPlugins(env.base);
    expect(status).toMatchObject({ version: '2.0.0', sha256: sha256(big), swaps: { applied: 1, rejected: 0 } });
    console.info(
      `3 MiB gzipped module (${shipped.byteLength} bytes shipped): swap ${String(swapped.durationMs)} ms from ` +
        `noticed to serving, ${seenMs} ms from the ConfigMap update to /debug/plugins; ${touches} Service updates`,
    );

    // Drained: a Service created now is served by the new module; none of the reconciles before it failed.
    await kube.core.createNamespacedService({ namespace, body: lbService('after') });
    await waitForIngress(kube.core, namespace, 'after');
    expect(await failedSyncs()).toBe(0);
  });

  it('refuses a gzip bomb that fits a ConfigMap at the cap; the module serving stays, memory comes back', async () => {
    const bomb = await gzipBomb(1024 * MIB);
    expect(bomb.byteLength).toBeLessThan(MIB);
    const pid = env.ccm.process.pid!;
    const before = memoryStats(pid);
    await putPluginConfigMap(kube.core, configMap, KEY, bomb);

    const status = await eventually('the bomb refused', async () => {
      const s = (await debugPlugins(env.base))[0];
      return s?.lastRejected?.sha256 === sha256(bomb) ? s : undefined;
    });
    expect(status.lastRejected?.reason).toBe(
      `${KEY} decompresses to more than 64 MiB (limits.maxModuleMB); refused, decompression stopped at the cap`,
    );
    expect(status).toMatchObject({ version: '2.0.0', sha256: sha256(big) });
    // The Event is written after the status changes (the recorder's own queue and rate limit): waited for.
    const event = await eventually('the PluginRejected Event', async () => {
      const [rejected] = await eventsAbout(kube.core, PLUGIN_NAMESPACE, 'ConfigMap', configMap, 'PluginRejected');
      return rejected;
    });
    expect(event.type).toBe('Warning');
    expect(event.message).toContain('still serving 2.0.0');

    await kube.core.createNamespacedService({ namespace, body: lbService('after-bomb') });
    await waitForIngress(kube.core, namespace, 'after-bomb');
    expect(await failedSyncs()).toBe(0);

    // Generous bounds: the cap is 64 MiB, the whole expansion would be 1024 MiB.
    const peak = memoryStats(pid).peakMb;
    expect(peak - Math.max(before.peakMb, before.rssMb)).toBeLessThan(256);
    const settled = await eventually('RSS back near its level before', async () => {
      const rss = memoryStats(pid).rssMb;
      return rss - before.rssMb < 96 ? rss : undefined;
    });
    console.info(
      `gzip bomb (${bomb.byteLength} bytes -> 1 GiB): RSS ${before.rssMb} MiB before, ${settled} MiB after; ` +
        `peak ${before.peakMb} MiB before, ${peak} MiB after`,
    );
  });
});
