// Small helpers of the service/route end-to-end tests: Service shapes, merge patches, events, and polling.
import { eventually } from '../../../../lab/process/index.ts';
import {
  type CoreV1Api,
  type CoreV1Event,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
  type V1Service,
} from '@kubernetes/client-node';
import type { Devcloud, LoadBalancerInventory } from '../../../../devcloud/src/index.ts';
import { TAG_SERVICE } from '../../../../lab/ccm/index.ts';

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export { eventually };

export function lbService(name: string, annotations?: Record<string, string>): V1Service {
  return {
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: {
      type: 'LoadBalancer',
      selector: { app: name },
      ports: [
        { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
        { name: 'dns', port: 53, targetPort: 5353, protocol: 'UDP' },
      ],
    },
  };
}

export function patchService(core: CoreV1Api, namespace: string, name: string, body: object): Promise<V1Service> {
  return core.patchNamespacedService({ name, namespace, body }, MERGE);
}

export function patchNode(core: CoreV1Api, name: string, body: object): Promise<V1Node> {
  return core.patchNode({ name, body }, MERGE);
}

export async function readService(core: CoreV1Api, namespace: string, name: string): Promise<V1Service | undefined> {
  try {
    return await core.readNamespacedService({ name, namespace });
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

export async function serviceEvents(core: CoreV1Api, namespace: string, name: string): Promise<CoreV1Event[]> {
  const list = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
  return list.items;
}

/** Waits for an event with `reason` about `name`; resolves with it. */
export function eventFor(
  core: CoreV1Api,
  namespace: string,
  name: string,
  reason: string,
  timeoutMs = 20_000,
): Promise<CoreV1Event> {
  return eventually(
    `${reason} event for ${namespace}/${name}`,
    async () => (await serviceEvents(core, namespace, name)).find((e) => e.reason === reason),
    timeoutMs,
  );
}

/** The devcloud load balancer(s) tagged with this Service. */
export function loadBalancersOf(cloud: Devcloud, namespace: string, name: string): LoadBalancerInventory[] {
  return cloud.inventory().loadBalancers.filter((lb) => lb.tags[TAG_SERVICE] === `${namespace}/${name}`);
}

/** Waits until the Service has an ingress; resolves with the Service and its one load balancer. */
export async function waitForIngress(
  core: CoreV1Api,
  cloud: Devcloud,
  namespace: string,
  name: string,
  timeoutMs = 20_000,
): Promise<{ svc: V1Service; lb: LoadBalancerInventory }> {
  return eventually(
    `ingress on ${namespace}/${name}`,
    async () => {
      const svc = await readService(core, namespace, name);
      if (!svc?.status?.loadBalancer?.ingress?.length) return undefined;
      const lbs = loadBalancersOf(cloud, namespace, name);
      return lbs.length === 1 && lbs[0] ? { svc, lb: lbs[0] } : undefined;
    },
    timeoutMs,
  );
}

/** Deletes every Service in `namespace` and waits for them to go; strips finalizers of any a dead CCM left. */
export async function deleteAllServices(core: CoreV1Api, namespace: string, timeoutMs = 20_000): Promise<void> {
  const items = (await core.listNamespacedService({ namespace })).items;
  await Promise.allSettled(items.map((s) => core.deleteNamespacedService({ name: s.metadata?.name ?? '', namespace })));
  try {
    await eventually(
      `Services of ${namespace} gone`,
      async () => (await core.listNamespacedService({ namespace })).items.length === 0,
      timeoutMs,
    );
  } catch (err) {
    const left = (await core.listNamespacedService({ namespace })).items;
    await Promise.allSettled(
      left.map((s) => patchService(core, namespace, s.metadata?.name ?? '', { metadata: { finalizers: null } })),
    );
    throw err;
  }
}
