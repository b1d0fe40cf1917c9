// The cluster load the benchmarks put on a CCM through an admin client with no client-side rate limit: kubelet-shaped
// Nodes and Services, created CREATE_CONCURRENCY at a time. One copy for bench:compare, bench:node-init, bench/upstream/rss.ts
// and bench/upstream/rss-phases.ts.
import { performance } from 'node:perf_hooks';
import { HttpMethod } from '../../host/src/kube/client/http-method.ts';
import type { Devcloud } from '../../devcloud/src/index.ts';
import type { KubeClient } from '../../host/src/kube/client/client.ts';
import { kubeletNode, UNINITIALIZED_TAINT } from '../../lab/ccm/index.ts';
import { NodeInitWatch } from './node-init-watch.ts';

export const CREATE_CONCURRENCY = 50;
export const EXCLUDE_FROM_LBS = 'node.kubernetes.io/exclude-from-external-load-balancers';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `prefix-00000`, `prefix-00001`, ... (`n` of them, numbered from `from`). */
export function names(prefix: string, n: number, from = 0): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${String(i + from).padStart(5, '0')}`);
}

/** `count` running devcloud instances named `prefix-00000`, ...; their names, which their Nodes register with. */
export function devcloudInstances(cloud: Devcloud, prefix: string, count: number): string[] {
  const made = names(prefix, count);
  for (const name of made) cloud.addInstance({ name });
  return made;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function inParallel<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Registers Ready kubelet-shaped Nodes with `labels`. `initialized`: without the cloud provider's taint (nothing for
 * cloud-node to do), as Nodes of a cluster the CCM has long been running in.
 */
export function createNodes(
  admin: KubeClient,
  nodeNames: readonly string[],
  labels: Record<string, string>,
  { initialized = false } = {},
): Promise<void> {
  return inParallel(nodeNames, CREATE_CONCURRENCY, (name) => {
    const body = kubeletNode(name, { ready: true, labels });
    if (initialized) body.spec = {};
    return admin.request({ method: HttpMethod.POST, path: '/api/v1/nodes', body });
  });
}

/** Creates Services of `type` in "default", one port 80 each. */
export function createServices(
  admin: KubeClient,
  serviceNames: readonly string[],
  type: 'LoadBalancer' | 'ClusterIP',
): Promise<void> {
  return inParallel(serviceNames, CREATE_CONCURRENCY, (name) =>
    admin.request({
      method: HttpMethod.POST,
      path: '/api/v1/namespaces/default/services',
      body: { metadata: { name }, spec: { type, ports: [{ port: 80, targetPort: 80 }] } },
    }),
  );
}

/** Polls until `count` Services in "default" have an ingress; throws after `timeoutMs`, naming `who`. */
export async function waitForIngress(admin: KubeClient, count: number, timeoutMs: number, who: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    const list = await admin.request<{ items: { status?: { loadBalancer?: { ingress?: unknown[] } } }[] }>({
      path: '/api/v1/namespaces/default/services',
    });
    const done = list.items.filter((s) => (s.status?.loadBalancer?.ingress?.length ?? 0) > 0).length;
    if (done >= count) return;
    if (performance.now() - started > timeoutMs) {
      throw new Error(`${who}: only ${done}/${count} LBs after ${timeoutMs / 1000} s`);
    }
    await sleep(500);
  }
}

/**
 * Starts watching Nodes labelled `runLabel` for the cloud taint and registers one warm-up Node (`name`); resolves once
 * the CCM has initialized it, which means its controllers run (the same readiness signal for every CCM measured).
 */
export async function warmUp(
  admin: KubeClient,
  cloud: Devcloud,
  runLabel: string,
  name = 'warmup',
): Promise<NodeInitWatch> {
  cloud.addInstance({ name });
  return warmUpNode(admin, runLabel, name);
}

/** warmUp for a Node whose instance the caller made (in any cloud). */
export async function warmUpNode(admin: KubeClient, runLabel: string, name: string): Promise<NodeInitWatch> {
  const watch = new NodeInitWatch(admin, runLabel, UNINITIALIZED_TAINT.key);
  await watch.start();
  try {
    await createNodes(admin, [name], { [runLabel]: 'warmup' });
    await watch.waitCleared(1, 60_000);
  } catch (err) {
    await watch.stop();
    throw err;
  }
  return watch;
}

/**
 * Fills the cluster up to `nodes` Nodes and `services` Services for a steady-state measurement: initialized Nodes
 * excluded from load balancers (no LB work) and ClusterIP Services. `have`: what the earlier phases created, besides
 * the warm-up Node and the "kubernetes" Service.
 */
export async function fillSteady(
  admin: KubeClient,
  cloud: Devcloud,
  runLabel: string,
  target: { nodes: number; services: number },
  have: { nodes: number; services: number },
): Promise<void> {
  const steadyNodes = names('steady', Math.max(0, target.nodes - have.nodes - 1));
  steadyNodes.forEach((name) => cloud.addInstance({ name }));
  await createNodes(admin, steadyNodes, { [runLabel]: 'steady', [EXCLUDE_FROM_LBS]: 'true' }, { initialized: true });
  await createServices(admin, names('cip', Math.max(0, target.services - have.services - 1)), 'ClusterIP');
}
