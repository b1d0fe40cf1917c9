// Two providers in one wasm-ccm: the default one (devcloud "public") and one serving the loadBalancerClass
// "devcloud.example/internal" (a second devcloud, its own ConfigMap, config, credentials, and a digest pin).
// Each gets exactly its Services; a Service of an unknown class is left alone; a module whose digest is not the pinned
// one is refused for the pinned provider while both keep serving.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Devcloud, startDevcloud } from '../../../devcloud/src/index.ts';
import { uniqueName } from '../../../lab/controlplane/index.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  CLEANUP_FINALIZER,
  debugPlugins,
  devcloudProvider,
  eventsAbout,
  type Kube,
  lbService,
  loadBalancersByService,
  PLUGIN_NAMESPACE,
  prepareKube,
  putPluginConfigMap,
  type ServingCCM,
  startServingCCM,
  waitForIngress,
  writePluginConfig,
  deleteServices,
} from '../../../lab/ccm/index.ts';
import { type HotswapModules, hotswapModules } from '../../../lab/plugins/index.ts';

const KEY = 'devcloud.wasm';
const INTERNAL = 'devcloud.example/internal';
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('two providers on different loadBalancerClasses', () => {
  const info = inject('controlPlane');
  const namespace = uniqueName('hotswap-cls');
  const publicMap = uniqueName('dc-public');
  const internalMap = uniqueName('dc-internal');
  const nodeName = uniqueName('hotswap-cls-node');
  let kube: Kube;
  let publicCloud: Devcloud;
  let internalCloud: Devcloud;
  let modules: HotswapModules;
  let env: ServingCCM;

  beforeAll(async () => {
    [kube, publicCloud, internalCloud, modules] = await Promise.all([
      prepareKube(info),
      startDevcloud(),
      startDevcloud({ vipPool: ['198.51.100.0/24'] }),
      hotswapModules(),
    ]);
    await kube.core.createNamespace({ body: { metadata: { name: namespace } } });
    // One machine known to both clouds under the same id, so both can use it as a backend.
    const instance = publicCloud.addInstance({ name: nodeName });
    internalCloud.addInstance({ id: instance.id, name: nodeName });
    await kube.core.createNode({
      body: {
        metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } },
        spec: { providerID: `devcloud://${instance.id}` },
        status: { addresses: instance.addresses.map((a) => ({ type: a.type, address: a.address })) },
      },
    });
    await putPluginConfigMap(kube.core, publicMap, KEY, modules.v1);
    await putPluginConfigMap(kube.core, internalMap, KEY, modules.v1);
    const configMap = (name: string) => ({ configMap: { namespace: PLUGIN_NAMESPACE, name, key: KEY } });
    const config = writePluginConfig(info.dir, namespace, {
      defaultProvider: 'public',
      loadBalancerClasses: { [INTERNAL]: 'internal' },
      providers: [
        devcloudProvider(info.dir, publicCloud, 'public', configMap(publicMap)),
        devcloudProvider(info.dir, internalCloud, 'internal', configMap(internalMap), {
          sha256: sha256(modules.v1),
          capabilities: ['loadBalancer'],
          limits: { poolSize: 1 },
        }),
      ],
    });
    env = await startServingCCM(info, kube.token, [`--plugin-config=${config}`, '--controllers=service']);
  });

  afterAll(async () => {
    // Services first, while the CCM still runs: their finalizers go only once their load balancers are deleted.
    await deleteServices(kube, namespace);
    const code = await env?.ccm.stop();
    await kube?.core.deleteNode({ name: nodeName }).catch(() => undefined);
    await kube?.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    for (const name of [publicMap, internalMap]) {
      await kube?.core.deleteNamespacedConfigMap({ name, namespace: PLUGIN_NAMESPACE }).catch(() => undefined);
    }
    await Promise.all([publicCloud?.stop(), internalCloud?.stop()]);
    expect(code).toBe(0);
  });

  it('shows both providers on /debug/plugins with their roles', async () => {
    const status = await debugPlugins(env.base);
    expect(status.map((s) => [s.name, s.default, s.loadBalancerClasses, s.serves])).toEqual([
      ['public', true, [], ['instancesV2', 'loadBalancer', 'routes', 'zones', 'clusters']],
      ['internal', false, [INTERNAL], ['loadBalancer']],
    ]);
  });

  it('sends each Service to the provider of its class and leaves unknown classes alone', async () => {
    await kube.core.createNamespacedService({ namespace, body: lbService('web') });
    await kube.core.createNamespacedService({ namespace, body: lbService('db', INTERNAL) });
    await kube.core.createNamespacedService({ namespace, body: lbService('other', 'example.com/someone-else') });
    const web = await waitForIngress(kube.core, namespace, 'web');
    const db = await waitForIngress(kube.core, namespace, 'db');

    expect([...loadBalancersByService(publicCloud, namespace)]).toEqual([
      ['web', web.status?.loadBalancer?.ingress?.[0]?.ip],
    ]);
    expect([...loadBalancersByService(internalCloud, namespace)]).toEqual([
      ['db', db.status?.loadBalancer?.ingress?.[0]?.ip],
    ]);
    expect(db.status?.loadBalancer?.ingress?.[0]?.ip).toMatch(/^198\.51\.100\./);

    // Another controller's class: no finalizer, no status, no load balancer, no events from us. The positive sign that
    // the controller has had its turn at 'other': a Service created after it that the controller does act on, a
    // ClusterIP one holding the cleanup finalizer, cleaned up. One worker takes the keys in order, one writer sends
    // the events in order.
    await kube.core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'other-marker', finalizers: [CLEANUP_FINALIZER] },
        spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
      },
    });
    await eventually('other-marker cleaned up', async () => {
      const events = await eventsAbout(kube.core, namespace, 'Service', 'other-marker', 'DeletedLoadBalancer');
      return events.length > 0;
    });
    const other = await kube.core.readNamespacedService({ namespace, name: 'other' });
    expect(other.metadata?.finalizers ?? []).not.toContain(CLEANUP_FINALIZER);
    expect(other.status?.loadBalancer?.ingress ?? []).toEqual([]);
    expect(await eventsAbout(kube.core, namespace, 'Service', 'other')).toEqual([]);
  });

  it('refuses a module that is not the pinned one for the internal provider; both keep serving', async () => {
    await putPluginConfigMap(kube.core, internalMap, KEY, modules.v2);
    const internal = await eventually('the candidate refused', async () => {
      const s = (await debugPlugins(env.base)).find((p) => p.name === 'internal');
      return s?.lastRejected ? s : undefined;
    });
    expect(internal.version).toBe('1.0.0');
    expect(internal.lastRejected).toMatchObject({
      sha256: sha256(modules.v2),
      reason: `sha256 ${sha256(modules.v2)} does not match the pinned ${sha256(modules.v1)}`,
    });
    // The pin is judged before anything is compiled: the refused module never ran, so its version is unknown.
    expect(internal.lastRejected?.version ?? null).toBeNull();
    const [event] = await eventually('PluginRejected event', async () => {
      const e = await eventsAbout(kube.core, PLUGIN_NAMESPACE, 'ConfigMap', internalMap, 'PluginRejected');
      return e.length > 0 ? e : undefined;
    });
    expect(event).toMatchObject({ type: 'Warning' });
    expect(event?.message).toContain('for provider internal: sha256');

    await kube.core.createNamespacedService({ namespace, body: lbService('cache', INTERNAL) });
    await kube.core.createNamespacedService({ namespace, body: lbService('api') });
    await waitForIngress(kube.core, namespace, 'cache');
    await waitForIngress(kube.core, namespace, 'api');
    expect([...loadBalancersByService(internalCloud, namespace).keys()].sort()).toEqual(['cache', 'db']);
    expect([...loadBalancersByService(publicCloud, namespace).keys()].sort()).toEqual(['api', 'web']);
    const publicStatus = (await debugPlugins(env.base)).find((p) => p.name === 'public');
    expect(publicStatus?.lastRejected).toBeNull();
  });
});
