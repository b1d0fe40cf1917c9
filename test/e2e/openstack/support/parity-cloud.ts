// What the OpenStack parity test reads from one side's project, normalized so that two projects seeded alike compare
// equal: Octavia's load balancers with their listeners, pools, members and monitors (whole objects, less the fields
// that are IDs, times or Octavia's own progress), the router's extra routes and the allowed address pairs of the
// servers' ports. Every ID the seeding made (servers, network, subnet, router, project) reads as its name.
import type { OpenStackClient } from '../../../../lab/clouds/openstack/index.ts';
import type { Estate } from './estate.ts';

/** Turns a side's IDs into names both sides share. */
export interface IdNames {
  text(s: string): string;
}

export function idNames(estate: Estate, extra: ReadonlyArray<[string, string]> = []): IdNames {
  const { project, network } = estate;
  const ids: Array<[string, string]> = [
    ...[...estate.servers.values()].map((s): [string, string] => [s.id, `{server ${s.name}}`]),
    [project.projectId, '{project}'],
    [project.userId, '{user}'],
    [network.networkId, '{network}'],
    [network.subnetId, '{subnet}'],
    [network.routerId, '{router}'],
    ...extra,
  ];
  return { text: (s) => ids.reduce((acc, [id, name]) => acc.replaceAll(id, name), s) };
}

/**
 * Fields left out: IDs of the objects themselves and of their relations (the tree says those), times, and what
 * Octavia's noop drivers and its missing health manager decide rather than the CCM.
 */
const NOT_COMPARED = new Set([
  'id',
  'created_at',
  'updated_at',
  'project_id',
  'tenant_id',
  'operating_status',
  'listeners',
  'pools',
  'loadbalancers',
  'members',
  'default_pool_id',
  'healthmonitor_id',
  'pool_id',
  'vip_port_id',
  // Octavia's noop network driver makes up a network for each VIP (the lab's README, Limits).
  'vip_network_id',
  'l7policies',
]);

/** `value` without NOT_COMPARED keys, every string through `names`. */
export function normalized(value: unknown, names: IdNames): unknown {
  if (typeof value === 'string') return names.text(value);
  if (Array.isArray(value)) return value.map((v) => normalized(v, names));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!NOT_COMPARED.has(k)) out[k] = normalized(v, names);
  return out;
}

type Raw = Record<string, unknown> & { id: string; name: string };

/** A load balancer as a tree keyed by names: listeners, and each pool with its members and monitor. */
export interface LoadBalancerView {
  loadBalancer: unknown;
  listeners: Record<string, unknown>;
  pools: Record<string, { pool: unknown; members: Record<string, unknown>; monitor: unknown }>;
}

const LBAAS = '/v2/lbaas';

/** Every load balancer of the project by name, as LoadBalancerView. */
export async function octaviaState(client: OpenStackClient, names: IdNames): Promise<Record<string, LoadBalancerView>> {
  const { loadbalancers } = await client.get<{ loadbalancers: Raw[] }>('load-balancer', `${LBAAS}/loadbalancers`);
  const out: Record<string, LoadBalancerView> = {};
  for (const lb of loadbalancers) {
    const lbNames: IdNames = { text: (s) => names.text(s).replaceAll(lb.id, '{lb}') };
    const { listeners } = await client.get<{ listeners: Raw[] }>(
      'load-balancer',
      `${LBAAS}/listeners?loadbalancer_id=${lb.id}`,
    );
    const { pools } = await client.get<{ pools: Raw[] }>('load-balancer', `${LBAAS}/pools?loadbalancer_id=${lb.id}`);
    const view: LoadBalancerView = { loadBalancer: normalized(lb, lbNames), listeners: {}, pools: {} };
    for (const l of listeners) view.listeners[l.name] = normalized(l, lbNames);
    for (const pool of pools) {
      const { members } = await client.get<{ members: Raw[] }>('load-balancer', `${LBAAS}/pools/${pool.id}/members`);
      const monitorId = pool.healthmonitor_id;
      const monitor =
        typeof monitorId === 'string' && monitorId !== ''
          ? (await client.get<{ healthmonitor: Raw }>('load-balancer', `${LBAAS}/healthmonitors/${monitorId}`))
              .healthmonitor
          : null;
      view.pools[pool.name] = {
        pool: normalized(pool, lbNames),
        members: Object.fromEntries(members.map((m) => [m.name, normalized(m, lbNames)])),
        monitor: monitor === null ? null : normalized(monitor, lbNames),
      };
    }
    out[lb.name] = view;
  }
  return out;
}

/** The member names of each pool of the named load balancer (undefined while it has none or is not ACTIVE). */
export async function activeMembers(
  client: OpenStackClient,
  lbName: string,
): Promise<Record<string, string[]> | undefined> {
  const { loadbalancers } = await client.get<{ loadbalancers: Raw[] }>(
    'load-balancer',
    `${LBAAS}/loadbalancers?name=${encodeURIComponent(lbName)}`,
  );
  const lb = loadbalancers[0];
  if (lb === undefined || lb.provisioning_status !== 'ACTIVE') return undefined;
  const { pools } = await client.get<{ pools: Raw[] }>('load-balancer', `${LBAAS}/pools?loadbalancer_id=${lb.id}`);
  const out: Record<string, string[]> = {};
  for (const pool of pools) {
    const { members } = await client.get<{ members: Raw[] }>('load-balancer', `${LBAAS}/pools/${pool.id}/members`);
    out[pool.name] = members.map((m) => m.name).sort();
  }
  return out;
}

/** The router's extra routes, destination -> next hop. */
export async function routerRoutes(client: OpenStackClient, routerId: string): Promise<Record<string, string>> {
  const { router } = await client.get<{ router: { routes: Array<{ destination: string; nexthop: string }> } }>(
    'network',
    `/v2.0/routers/${routerId}`,
  );
  return Object.fromEntries(router.routes.map((r) => [r.destination, r.nexthop]));
}

/** The allowed address pairs on each server's ports, by server name. */
export async function addressPairs(client: OpenStackClient, estate: Estate): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const server of estate.servers.values()) {
    const { ports } = await client.get<{ ports: Array<{ allowed_address_pairs: Array<{ ip_address: string }> }> }>(
      'network',
      `/v2.0/ports?device_id=${server.id}`,
    );
    out[server.name] = ports.flatMap((p) => p.allowed_address_pairs.map((pair) => pair.ip_address)).sort();
  }
  return out;
}
