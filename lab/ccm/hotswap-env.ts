// Pieces of the hot-swap end-to-end tests (and bench/hot-swap/hot-swap.ts): plugin ConfigMaps, a --plugin-config file for
// devcloud providers, wasm-ccm as a real process serving /debug/plugins on loopback, Nodes with devcloud instances,
// LoadBalancer Services, and polling.
import { eventually, freePort, httpsGetInsecure } from '../process/index.ts';
import { CoreV1Api, type CoreV1Event, type KubeConfig, type V1Service } from '@kubernetes/client-node';
import type { Devcloud } from '../../devcloud/src/index.ts';
import type { PluginStatus } from '../../host/src/plugin/index.ts';
import { CCMProcess } from './ccm-process.ts';
import {
  type ControlPlaneInfo,
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../controlplane/index.ts';

/** Where the operator RBAC lets the CCM read plugin ConfigMaps. */
import { devcloudProvider, PLUGIN_NAMESPACE, putPluginConfigMap, writePluginConfig } from './plugin-config.ts';
export { PLUGIN_NAMESPACE };

export interface Kube {
  admin: KubeConfig;
  core: CoreV1Api;
  /** The CCM ServiceAccount's token (manifests/rbac.yaml applied). */
  token: string;
}

export async function prepareKube(info: ControlPlaneInfo): Promise<Kube> {
  const admin = adminKubeConfig(info);
  await applyManifests(admin, loadManifests('rbac.yaml'));
  const { token } = await ccmIdentity(info, admin);
  return { admin, core: admin.makeApiClient(CoreV1Api), token };
}

/**
 * Teardown: deletes every Service of `namespace` and waits (best effort) until they are gone. Call it while the CCM
 * still runs: their finalizers go only once their load balancers are deleted.
 */
export async function deleteServices(kube: Kube | undefined, namespace: string): Promise<void> {
  if (!kube) return;
  const services = await kube.core.listNamespacedService({ namespace }).catch(() => undefined);
  await Promise.allSettled(
    (services?.items ?? []).map((s) => kube.core.deleteNamespacedService({ namespace, name: s.metadata?.name ?? '' })),
  );
  await eventually('services gone', async () =>
    (await kube.core.listNamespacedService({ namespace })).items.length === 0 ? true : undefined,
  ).catch(() => undefined);
}

/** SyncLoadBalancerFailed events in `namespace`: a reconcile that failed. */
export async function failedSyncs(core: CoreV1Api, namespace: string): Promise<number> {
  const list = await core.listNamespacedEvent({ namespace, fieldSelector: 'reason=SyncLoadBalancerFailed' });
  return list.items.length;
}

/**
 * Teardown of a swap test: its Services first, while the CCM still runs (their finalizers go only once their load
 * balancers are deleted), then the CCM (its exit code is returned), the Node, namespace, plugin ConfigMap and cloud.
 */
export async function tearDownSwapTest(parts: {
  kube: Kube | undefined;
  env: ServingCCM | undefined;
  cloud: Devcloud | undefined;
  namespace: string;
  nodeName: string;
  configMap: string;
}): Promise<number | null | undefined> {
  const { kube, env, cloud, namespace, nodeName, configMap } = parts;
  await deleteServices(kube, namespace);
  const code = await env?.ccm.stop();
  await kube?.core.deleteNode({ name: nodeName }).catch(() => undefined);
  await kube?.core.deleteNamespace({ name: namespace }).catch(() => undefined);
  await kube?.core.deleteNamespacedConfigMap({ name: configMap, namespace: PLUGIN_NAMESPACE }).catch(() => undefined);
  await cloud?.stop();
  return code;
}

/** Polls `fn` until it returns something other than undefined; errors count as "not yet". */

/** Creates or replaces a plugin ConfigMap: the module under `key`, and its signature under `<key>.sig` if given. */
export { devcloudProvider, putPluginConfigMap, writePluginConfig };

export interface ServingCCM {
  ccm: CCMProcess;
  /** https://127.0.0.1:<port> */
  base: string;
}

/** Starts wasm-ccm serving /debug/plugins on loopback without delegated auth; resolves once controllers run. */
export async function startServingCCM(
  info: ControlPlaneInfo,
  token: string,
  args: string[],
  options: { waitReady?: boolean } = {},
): Promise<ServingCCM> {
  const port = await freePort();
  const ccm = new CCMProcess({
    info,
    token,
    args: [
      '--cloud-provider=devcloud',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      '--delegated-auth=false',
      ...args,
    ],
  });
  if (options.waitReady ?? true) await ccm.ready(60_000);
  return { ccm, base: `https://127.0.0.1:${port}` };
}

/** What one ConfigMap hot-swap test owns; `tearDownSwapTest` removes it. */
export interface SwapTestNames {
  namespace: string;
  nodeName: string;
  configMap: string;
}

/**
 * Sets up a ConfigMap hot-swap test: its namespace, a Node with a devcloud instance, the plugin ConfigMap holding
 * `module` (and its signature) under `key`, and wasm-ccm running the service controller with the devcloud provider
 * read from that ConfigMap (checking signatures with `publicKeyPem` when given).
 */
export async function startConfigMapSwapTest(
  info: ControlPlaneInfo,
  kube: Kube,
  cloud: Devcloud,
  names: SwapTestNames,
  plugin: { key: string; module: Uint8Array; signature?: string; publicKeyPem?: string },
): Promise<ServingCCM> {
  await kube.core.createNamespace({ body: { metadata: { name: names.namespace } } });
  await seedNode(kube.core, cloud, names.nodeName);
  await putPluginConfigMap(kube.core, names.configMap, plugin.key, plugin.module, plugin.signature);
  const source = { configMap: { namespace: PLUGIN_NAMESPACE, name: names.configMap, key: plugin.key } };
  const extra = plugin.publicKeyPem === undefined ? {} : { publicKey: plugin.publicKeyPem };
  const config = writePluginConfig(info.dir, names.configMap, {
    providers: [devcloudProvider(info.dir, cloud, 'devcloud', source, extra)],
  });
  return startServingCCM(info, kube.token, [`--plugin-config=${config}`, '--controllers=service']);
}

export const httpsGet = (url: string) => httpsGetInsecure(url, { timeoutMs: 5_000 });

export async function debugPlugins(base: string): Promise<(PluginStatus & { calls: number })[]> {
  const res = await httpsGet(`${base}/debug/plugins`);
  if (res.status !== 200) throw new Error(`/debug/plugins: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as (PluginStatus & { calls: number })[];
}

/** Waits until /debug/plugins shows `provider` serving `version`. */
export async function servingVersion(
  base: string,
  provider: string,
  version: string,
  timeoutMs = 20_000,
): Promise<void> {
  await eventually(
    `${provider} serving ${version}`,
    async () => ((await debugPlugins(base)).find((p) => p.name === provider)?.version === version ? true : undefined),
    timeoutMs,
  );
}

/** An initialized Node (providerID set) with its devcloud instance, as a kubelet with --provider-id registers it. */
export async function seedNode(core: CoreV1Api, cloud: Devcloud, name: string): Promise<void> {
  const instance = cloud.addInstance({ name });
  await core.createNode({
    body: {
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
      spec: { providerID: `devcloud://${instance.id}` },
      status: { addresses: instance.addresses.map((a) => ({ type: a.type, address: a.address })) },
    },
  });
}

export function lbService(
  name: string,
  loadBalancerClass?: string,
  annotations: Record<string, string> = {},
): V1Service {
  return {
    metadata: { name, annotations },
    spec: {
      type: 'LoadBalancer',
      ...(loadBalancerClass ? { loadBalancerClass } : {}),
      selector: { app: name },
      ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
    },
  };
}

/** The Service once it has an ingress IP. */
export async function waitForIngress(
  core: CoreV1Api,
  namespace: string,
  name: string,
  timeoutMs = 20_000,
): Promise<V1Service> {
  return eventually(
    `${namespace}/${name} has an ingress IP`,
    async () => {
      const svc = await core.readNamespacedService({ name, namespace });
      return svc.status?.loadBalancer?.ingress?.[0]?.ip ? svc : undefined;
    },
    timeoutMs,
  );
}

export async function eventsAbout(
  core: CoreV1Api,
  namespace: string,
  kind: string,
  name: string,
  reason?: string,
): Promise<CoreV1Event[]> {
  const list = await core.listNamespacedEvent({
    namespace,
    fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}${reason ? `,reason=${reason}` : ''}`,
  });
  return list.items;
}

/** devcloud load balancers made for Services of `namespace`, by Service name. */
export function loadBalancersByService(cloud: Devcloud, namespace: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const lb of cloud.inventory().loadBalancers) {
    const key = lb.tags['k8s-service'];
    if (key?.startsWith(`${namespace}/`)) out.set(key.slice(namespace.length + 1), lb.vip);
  }
  return out;
}
