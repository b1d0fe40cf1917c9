// What the OpenStack plugin's end-to-end tests run against: a project of the lab OpenStack with a network routed to
// the external network and servers on it, the catalog and token the host would give the plugin, and readers of what
// Octavia and Neutron hold afterwards.
import {
  bootServer,
  createRoutedNetwork,
  createTestProject,
  issueToken,
  type OpenStack,
  type OpenStackClient,
  pollUntil,
  type Server,
  type TenantNetwork,
  type TestProject,
} from '../../../../lab/clouds/openstack/index.ts';
import type { KeystoneCatalog } from '../../../../lab/plugins/index.ts';

export interface Estate {
  project: TestProject;
  network: TenantNetwork;
  /** Name of the project's network (nova lists addresses under it). */
  networkName: string;
  servers: Map<string, Server>;
}

/** A project, a routed network, and servers: each name in `running` ACTIVE, each in `stopped` SHUTOFF. */
export async function makeEstate(
  stack: OpenStack,
  name: string,
  cidr: string,
  running: readonly string[],
  stopped: readonly string[],
): Promise<Estate> {
  const project = await createTestProject(stack.adminClient(), name);
  const network = await createRoutedNetwork(project.client, {
    name,
    cidr,
    externalNetworkId: stack.resources.external.networkId,
  });
  const boot = (server: string): Promise<Server> =>
    bootServer(project.client, {
      name: server,
      flavorId: stack.resources.flavor.id,
      imageId: stack.resources.image.id,
      networkId: network.networkId,
    });
  const booted = await Promise.all([...running, ...stopped].map(boot));
  const servers = new Map(booted.map((s) => [s.name, s]));
  for (const server of stopped) await stopServer(project.client, servers.get(server)!.id);
  return { project, network, networkName: name, servers };
}

export async function stopServer(client: OpenStackClient, id: string): Promise<void> {
  await client.request('compute', 'POST', `/servers/${id}/action`, { body: { 'os-stop': null } });
  await pollUntil(
    `server ${id} to be SHUTOFF`,
    async () => (await client.get<{ server: Server }>('compute', `/servers/${id}`)).server.status,
    (status) => status === 'SHUTOFF',
    60_000,
  );
}

/** The first address nova lists for the server. */
export function addressOf(server: Server): string {
  return Object.values(server.addresses)[0]?.[0]?.addr ?? '';
}

/** What the host's Keystone login gives the plugin: a token for the project and its catalog's public endpoints. */
export async function login(project: TestProject): Promise<{ token: string; catalog: KeystoneCatalog }> {
  const token = await issueToken(project.credentials);
  const endpoints = [...token.endpoints].map(([type, url]) => ({ type, name: type, url }));
  return { token: token.id, catalog: { region: 'RegionOne', interface: 'public', endpoints } };
}

export interface OctaviaListener {
  id: string;
  name: string;
  protocol: string;
  protocol_port: number;
  connection_limit: number;
  tags: string[];
  allowed_cidrs: string[] | null;
  timeout_client_data: number;
  insert_headers: Record<string, string>;
}

export interface OctaviaPool {
  id: string;
  name: string;
  protocol: string;
  lb_algorithm: string;
  session_persistence: { type: string } | null;
  listeners: Array<{ id: string }>;
  healthmonitor_id: string | null;
}

export interface OctaviaMember {
  name: string;
  address: string;
  protocol_port: number;
  subnet_id: string;
}

export interface OctaviaMonitor {
  name: string;
  type: string;
  delay: number;
  timeout: number;
  max_retries: number;
  max_retries_down: number;
}

export interface OctaviaLoadBalancer {
  id: string;
  name: string;
  description: string;
  provisioning_status: string;
  vip_address: string;
  vip_subnet_id: string;
  vip_port_id: string;
  tags: string[];
}

/** Everything Octavia holds for the project's load balancer named `name`, or null when there is none. */
export interface OctaviaTree {
  lb: OctaviaLoadBalancer;
  listeners: OctaviaListener[];
  pools: Array<OctaviaPool & { members: OctaviaMember[]; monitor: OctaviaMonitor | null }>;
}

export async function octaviaTree(client: OpenStackClient, name: string): Promise<OctaviaTree | null> {
  const { loadbalancers } = await client.get<{ loadbalancers: OctaviaLoadBalancer[] }>(
    'load-balancer',
    `/v2/lbaas/loadbalancers?name=${encodeURIComponent(name)}`,
  );
  const lb = loadbalancers[0];
  if (lb === undefined) return null;
  const { listeners } = await client.get<{ listeners: OctaviaListener[] }>(
    'load-balancer',
    `/v2/lbaas/listeners?loadbalancer_id=${lb.id}`,
  );
  const { pools } = await client.get<{ pools: OctaviaPool[] }>(
    'load-balancer',
    `/v2/lbaas/pools?loadbalancer_id=${lb.id}`,
  );
  const withMembers = await Promise.all(
    pools.map(async (pool) => {
      const { members } = await client.get<{ members: OctaviaMember[] }>(
        'load-balancer',
        `/v2/lbaas/pools/${pool.id}/members`,
      );
      const monitor = pool.healthmonitor_id
        ? (
            await client.get<{ healthmonitor: OctaviaMonitor }>(
              'load-balancer',
              `/v2/lbaas/healthmonitors/${pool.healthmonitor_id}`,
            )
          ).healthmonitor
        : null;
      return { ...pool, members, monitor };
    }),
  );
  listeners.sort((a, b) => a.protocol_port - b.protocol_port);
  withMembers.sort((a, b) => a.name.localeCompare(b.name));
  return { lb, listeners, pools: withMembers };
}

/** Member names of each pool, pools by name. */
export function membersByPool(tree: OctaviaTree): Record<string, string[]> {
  return Object.fromEntries(tree.pools.map((p) => [p.name, p.members.map((m) => m.name).sort()]));
}

/** The mutating requests among "<METHOD> <url>" lines. */
export function mutations(requests: readonly string[]): string[] {
  return requests.filter((r) => !r.startsWith('GET '));
}
