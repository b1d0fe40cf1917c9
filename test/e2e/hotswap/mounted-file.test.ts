// Hot swap through a mounted ConfigMap volume: the Deployment's `--plugin=/etc/wasm-ccm/plugins/devcloud.wasm`
// (shorthand for one file provider) points into a directory kubelet updates atomically (simulated here exactly:
// new `..<timestamp>` directory, `..data` symlink renamed over). The running CCM switches within a second or two
// of the rename, and refuses a bad module there too while the current one keeps serving.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { uniqueName } from '../../../lab/controlplane/index.ts';
import { kubeletWrite } from '../../support/kubelet-writer.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  debugPlugins,
  type Kube,
  lbService,
  prepareKube,
  seedNode,
  type ServingCCM,
  servingVersion,
  startServingCCM,
  waitForIngress,
  deleteServices,
} from '../../../lab/ccm/index.ts';
import { type HotswapModules, hotswapModules } from '../../../lab/plugins/index.ts';

const KEY = 'devcloud.wasm';
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('hot swap through a mounted ConfigMap volume (--plugin shorthand)', () => {
  const info = inject('controlPlane');
  const namespace = uniqueName('hotswap-vol');
  const nodeName = uniqueName('hotswap-vol-node');
  let kube: Kube;
  let cloud: Devcloud;
  let modules: HotswapModules;
  let env: ServingCCM;
  let volume = '';

  beforeAll(async () => {
    [kube, cloud, modules] = await Promise.all([prepareKube(info), startDevcloud(), hotswapModules()]);
    await kube.core.createNamespace({ body: { metadata: { name: namespace } } });
    await seedNode(kube.core, cloud, nodeName);
    volume = mkdtempSync(join(info.dir, 'plugin-volume-'));
    await kubeletWrite(volume, { [KEY]: modules.v1 });
    const host = `127.0.0.1:${cloud.port}`;
    const cloudConfig = join(volume, '..', `${namespace}-cloud.json`);
    writeFileSync(cloudConfig, JSON.stringify({ url: cloud.url, region: 'dc-east-1' }));
    const credentials = join(volume, '..', `${namespace}-credentials.json`);
    writeFileSync(
      credentials,
      JSON.stringify({ credentials: [{ name: 'dc', hosts: [host], bearerToken: cloud.token, insecure: true }] }),
    );
    env = await startServingCCM(info, kube.token, [
      `--plugin=${join(volume, KEY)}`,
      `--cloud-config=${cloudConfig}`,
      `--plugin-credentials=${credentials}`,
      `--plugin-allowed-hosts=${host}`,
      '--controllers=service',
    ]);
  });

  afterAll(async () => {
    // Services first, while the CCM still runs: their finalizers go only once their load balancers are deleted.
    await deleteServices(kube, namespace);
    const code = await env?.ccm.stop();
    await kube?.core.deleteNode({ name: nodeName }).catch(() => undefined);
    await kube?.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    await cloud?.stop();
    expect(code).toBe(0);
  });

  it('switches to v2 within two seconds of kubelet renaming ..data, and keeps reconciling', async () => {
    await kube.core.createNamespacedService({ namespace, body: lbService('before') });
    await waitForIngress(kube.core, namespace, 'before');
    const [before] = await debugPlugins(env.base);
    expect(before).toMatchObject({ name: 'devcloud', version: '1.0.0', source: `file ${join(volume, KEY)}` });

    const { swappedAt } = await kubeletWrite(volume, { [KEY]: modules.v2 });
    await servingVersion(env.base, 'devcloud', '2.0.0', 10_000);
    expect(Date.now() - swappedAt).toBeLessThan(2_000);
    const swapped = await env.ccm.waitForLog('the swap log line', (r) => r.msg === 'plugin swapped');
    expect(swapped).toMatchObject({ from: '1.0.0', to: '2.0.0', sha256: sha256(modules.v2) });
    // Read through the resolved revision directory, never the `..data` link itself.
    expect(String(swapped.origin)).toMatch(new RegExp(`\\(${volume}/\\.\\.[^/]+/${KEY.replace('.', '\\.')}\\)$`));

    await kube.core.createNamespacedService({ namespace, body: lbService('after') });
    await waitForIngress(kube.core, namespace, 'after');
    const failed = await kube.core.listNamespacedEvent({ namespace, fieldSelector: 'reason=SyncLoadBalancerFailed' });
    expect(failed.items).toEqual([]);
  });

  it('refuses a bad module written to the volume and keeps v2 serving', async () => {
    await kubeletWrite(volume, { [KEY]: modules.abiV2 });
    const status = await eventually('the candidate refused', async () => {
      const s = (await debugPlugins(env.base))[0];
      return s?.lastRejected?.sha256 === sha256(modules.abiV2) ? s : undefined;
    });
    expect(status.version).toBe('2.0.0');
    expect(status.lastRejected?.reason).toContain('speaks provider ABI 2.0');
    expect(status.lastRejected?.origin).toContain(volume);
    await env.ccm.waitForLog('the rejection log line', (r) => r.msg === 'plugin candidate rejected');

    await kube.core.createNamespacedService({ namespace, body: lbService('later') });
    await waitForIngress(kube.core, namespace, 'later');
  });
});
