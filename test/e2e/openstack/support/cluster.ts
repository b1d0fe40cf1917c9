// What test/e2e/openstack/ccm.test.ts reads and changes around wasm-ccm: Nodes as a kubelet registers them for a
// nova server, the router's extra routes, the members Octavia holds for a Service, what is left in the project, and
// a nova server deleted.
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import { KWOK_ANNOTATION, KWOK_ANNOTATION_VALUE } from '../../../../lab/controlplane/index.ts';
import { kubeletNode } from '../../../../lab/ccm/index.ts';
import { ApiError, type OpenStackClient, pollUntil } from '../../../../lab/clouds/openstack/index.ts';
import { octaviaTree } from './estate.ts';

/** The annotation a kubelet with --node-ip and --cloud-provider=external sets (upstream's ProvidedNodeIP). */
export const PROVIDED_NODE_IP = 'alpha.kubernetes.io/provided-node-ip';

/**
 * The Node a kubelet with --cloud-provider=external --node-ip=<address> registers for a server: the uninitialized
 * taint, the provided-IP annotation, InternalIP and Hostname, and the pod CIDR the node IPAM controller gives it.
 * Kept Ready by kwok (which keeps addresses a kubelet set).
 */
export function kubeletNodeFor(name: string, address: string, podCIDR: string): V1Node {
  const node = kubeletNode(name, {
    annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE, [PROVIDED_NODE_IP]: address },
  });
  node.spec = { ...node.spec, podCIDR, podCIDRs: [podCIDR] };
  node.status = {
    ...node.status,
    addresses: [
      { type: 'InternalIP', address },
      { type: 'Hostname', address: name },
    ],
  };
  return node;
}

/** The node's addresses as `type=address` strings, in order. */
export function addressList(node: V1Node): string[] {
  return (node.status?.addresses ?? []).map((a) => `${a.type}=${a.address}`);
}

export async function readNodeOrGone(core: CoreV1Api, name: string): Promise<V1Node | undefined> {
  try {
    return await core.readNode({ name });
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/** The router's extra routes within `prefix` (a CIDR's leading text), destination -> next hop. */
export async function routerRoutes(
  client: OpenStackClient,
  routerId: string,
  prefix: string,
): Promise<Record<string, string>> {
  const { router } = await client.get<{ router: { routes: Array<{ destination: string; nexthop: string }> } }>(
    'network',
    `/v2.0/routers/${routerId}`,
  );
  const ours = router.routes.filter((r) => r.destination.startsWith(prefix));
  ours.sort((a, b) => a.destination.localeCompare(b.destination));
  return Object.fromEntries(ours.map((r) => [r.destination, r.nexthop]));
}

/** `name=address:port` of every member of the load balancer named `lbName`, sorted; undefined when there is none. */
export async function lbMembers(client: OpenStackClient, lbName: string): Promise<string[] | undefined> {
  const tree = await octaviaTree(client, lbName);
  if (tree === null) return undefined;
  return tree.pools.flatMap((p) => p.members.map((m) => `${m.name}=${m.address}:${m.protocol_port}`)).sort();
}

/** Load balancers, listeners and pools of the project whose names contain `infix` (OCCM names carry the LB's). */
export async function octaviaLeft(
  client: OpenStackClient,
  infix: string,
): Promise<{ loadbalancers: string[]; listeners: string[]; pools: string[] }> {
  const names = async (kind: string): Promise<string[]> => {
    const body = await client.get<Record<string, Array<{ name: string }>>>('load-balancer', `/v2/lbaas/${kind}`);
    return (body[kind] ?? []).map((o) => o.name).filter((n) => n.includes(infix));
  };
  const [loadbalancers, listeners, pools] = await Promise.all([
    names('loadbalancers'),
    names('listeners'),
    names('pools'),
  ]);
  return { loadbalancers, listeners, pools };
}

/** Deletes a nova server and waits until nova answers 404 for it. */
export async function deleteServer(client: OpenStackClient, id: string): Promise<void> {
  await client.request('compute', 'DELETE', `/servers/${id}`);
  await pollUntil(
    `server ${id} to be deleted`,
    async () => {
      try {
        await client.get('compute', `/servers/${id}`);
        return false;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return true;
        throw err;
      }
    },
    (gone) => gone,
    60_000,
  );
}
