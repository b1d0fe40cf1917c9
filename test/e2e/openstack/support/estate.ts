// What the OpenStack plugin's end-to-end tests run against: a project of the lab OpenStack with a network routed to
// the external network and servers on it (at addresses of nova's choice or of the test's), the Keystone login the
// host is given for it, and readers of what Octavia and Neutron hold afterwards.
import {
  bootServer,
  createRoutedNetwork,
  createTestProject,
  type LabOpenStack,
  type OpenStackClient,
  pollUntil,
  type Server,
  type TenantNetwork,
  type TestProject,
} from '../../../../lab/clouds/openstack/index.ts';
import type { KeystonePasswordLogin } from '../../../../lab/plugins/index.ts';

export interface Estate {
  project: TestProject;
  network: TenantNetwork;
  /** Name of the project's network (nova lists addresses under it). */
  networkName: string;
  servers: Map<string, Server>;
}

/**
 * A project, a routed network, and servers: each name in `running` ACTIVE, each in `stopped` SHUTOFF; at the address
 * `addresses` gives for it (on a port made for it), else at one nova picks.
 */
export async function makeEstate(
  stack: LabOpenStack,
  name: string,
  cidr: string,
  running: readonly string[],
  stopped: readonly string[],
  addresses: Readonly<Record<string, string>> = {},
): Promise<Estate> {
  const project = await createTestProject(stack.adminClient(), name);
  const network = await createRoutedNetwork(project.client, {
    name,
    cidr,
    externalNetworkId: stack.resources.external.networkId,
  });
  const boot = async (server: string): Promise<Server> => {
    const address = addresses[server];
    const options = {
      name: server,
      flavorId: stack.resources.flavor.id,
      imageId: stack.resources.image.id,
      networkId: network.networkId,
    };
    if (address === undefined) return bootServer(project.client, options);
    const { port } = await project.client.post<{ port: { id: string } }>('network', '/v2.0/ports', {
      port: { network_id: network.networkId, fixed_ips: [{ subnet_id: network.subnetId, ip_address: address }] },
    });
    return bootOnPort(project.client, options, port.id);
  };
  const booted = await Promise.all([...running, ...stopped].map(boot));
  const servers = new Map(booted.map((s) => [s.name, s]));
  for (const server of stopped) await stopServer(project.client, servers.get(server)!.id);
  return { project, network, networkName: name, servers };
}

/** bootServer's boot, on a port made beforehand (the lab's helper boots on a network). */
async function bootOnPort(
  client: OpenStackClient,
  options: { name: string; flavorId: string; imageId: string },
  portId: string,
): Promise<Server> {
  const { server } = await client.post<{ server: { id: string } }>('compute', '/servers', {
    server: {
      name: options.name,
      flavorRef: options.flavorId,
      imageRef: options.imageId,
      networks: [{ port: portId }],
    },
  });
  return pollUntil(
    `server ${options.name} to become ACTIVE`,
    async () => (await client.get<{ server: Server }>('compute', `/servers/${server.id}`)).server,
    (s) => {
      if (s.status === 'ERROR') throw new Error(`server ${options.name} went to ERROR: ${s.fault?.message ?? ''}`);
      return s.status === 'ACTIVE' && Object.values(s.addresses).some((list) => list.length > 0);
    },
    120_000,
  );
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

/** The `keystone` credentials entry's login for the project's user. */
export function keystoneLogin(project: TestProject): KeystonePasswordLogin {
  const { authUrl, username, password, projectName } = project.credentials;
  return { authUrl, username, password, projectName, region: 'RegionOne' };
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
