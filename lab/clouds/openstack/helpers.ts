// What an end-to-end test does with the lab OpenStack, through its real APIs: a project and user of its own, servers
// booted and deleted, networks routed to the external network, Octavia load balancers listed.
import { ApiError, type Credentials, OpenStackClient, pollUntil } from './api.ts';

export interface TestProject {
  projectId: string;
  userId: string;
  credentials: Credentials;
  client: OpenStackClient;
}

interface Named {
  id: string;
  name: string;
}

async function roleId(admin: OpenStackClient, name: string): Promise<string> {
  const { roles } = await admin.get<{ roles: Named[] }>('identity', `/roles?name=${encodeURIComponent(name)}`);
  if (roles[0]) return roles[0].id;
  try {
    return (await admin.post<{ role: Named }>('identity', '/roles', { role: { name } })).role.id;
  } catch (err) {
    // Another suite created it meanwhile.
    if (!(err instanceof ApiError && err.status === 409)) throw err;
    return roleId(admin, name);
  }
}

/**
 * A new project and a user that is a member of it (and an Octavia load-balancer member), named after `name` plus a
 * random suffix so each suite gets its own.
 */
export async function createTestProject(admin: OpenStackClient, name: string): Promise<TestProject> {
  const unique = `${name}-${Math.random().toString(36).slice(2, 8)}`;
  const { project } = await admin.post<{ project: Named }>('identity', '/projects', {
    project: { name: unique, domain_id: 'default' },
  });
  const password = `pw-${unique}`;
  const { user } = await admin.post<{ user: Named }>('identity', '/users', {
    user: { name: unique, password, domain_id: 'default', default_project_id: project.id },
  });
  for (const role of ['member', 'load-balancer_member']) {
    const id = await roleId(admin, role);
    await admin.request('identity', 'PUT', `/projects/${project.id}/users/${user.id}/roles/${id}`);
  }
  const credentials: Credentials = {
    authUrl: admin.credentials.authUrl,
    username: unique,
    password,
    projectName: unique,
  };
  return { projectId: project.id, userId: user.id, credentials, client: new OpenStackClient(credentials) };
}

export interface Server {
  id: string;
  name: string;
  status: string;
  /** Network name -> its addresses. */
  addresses: Record<string, Array<{ addr: string; version: number; 'OS-EXT-IPS:type'?: string }>>;
  metadata: Record<string, string>;
  'OS-EXT-AZ:availability_zone'?: string;
  fault?: { message: string };
}

export interface BootOptions {
  name: string;
  flavorId: string;
  imageId: string;
  networkId: string;
  metadata?: Record<string, string>;
  timeoutMs?: number;
}

/** Boots a server and waits until it is ACTIVE with an address; throws with nova's fault if it goes to ERROR. */
export async function bootServer(client: OpenStackClient, options: BootOptions): Promise<Server> {
  const { server } = await client.post<{ server: { id: string } }>('compute', '/servers', {
    server: {
      name: options.name,
      flavorRef: options.flavorId,
      imageRef: options.imageId,
      networks: [{ uuid: options.networkId }],
      metadata: options.metadata ?? {},
    },
  });
  return pollUntil(
    `server ${options.name} to become ACTIVE with an address`,
    async () => {
      const current = (await client.get<{ server: Server }>('compute', `/servers/${server.id}`)).server;
      if (current.status === 'ERROR') {
        throw new Error(`server ${options.name} went to ERROR: ${current.fault?.message ?? 'no fault recorded'}`);
      }
      return current;
    },
    (s) => s.status === 'ACTIVE' && Object.values(s.addresses).some((list) => list.length > 0),
    options.timeoutMs ?? 120_000,
  );
}

/** Deletes a server and waits until nova no longer knows it. */
export async function deleteServer(client: OpenStackClient, id: string, timeoutMs = 60_000): Promise<void> {
  await client.delete('compute', `/servers/${id}`);
  await pollUntil(
    `server ${id} to be deleted`,
    async () => (await client.request('compute', 'GET', `/servers/${id}`, { ok: [200, 404] })).status,
    (status) => status === 404,
    timeoutMs,
  );
}

export interface TenantNetwork {
  networkId: string;
  subnetId: string;
  routerId: string;
  cidr: string;
}

/** A network, a subnet and a router from it to the external network, owned by the client's project. */
export async function createRoutedNetwork(
  client: OpenStackClient,
  options: { name: string; cidr: string; externalNetworkId: string },
): Promise<TenantNetwork> {
  const { network } = await client.post<{ network: Named }>('network', '/v2.0/networks', {
    network: { name: options.name },
  });
  const { subnet } = await client.post<{ subnet: Named }>('network', '/v2.0/subnets', {
    subnet: { name: `${options.name}-subnet`, network_id: network.id, ip_version: 4, cidr: options.cidr },
  });
  const { router } = await client.post<{ router: Named }>('network', '/v2.0/routers', {
    router: { name: `${options.name}-router`, external_gateway_info: { network_id: options.externalNetworkId } },
  });
  await client.put('network', `/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
  return { networkId: network.id, subnetId: subnet.id, routerId: router.id, cidr: options.cidr };
}

export interface LoadBalancer {
  id: string;
  name: string;
  provisioning_status: string;
  operating_status: string;
  vip_address: string;
  vip_subnet_id: string;
  listeners: Array<{ id: string }>;
  pools: Array<{ id: string }>;
}

export async function listLoadBalancers(client: OpenStackClient): Promise<LoadBalancer[]> {
  return (await client.get<{ loadbalancers: LoadBalancer[] }>('load-balancer', '/v2/lbaas/loadbalancers'))
    .loadbalancers;
}

/** Waits until the load balancer's provisioning status is ACTIVE (Octavia refuses changes while it is PENDING). */
export async function waitLoadBalancerActive(
  client: OpenStackClient,
  id: string,
  timeoutMs = 60_000,
): Promise<LoadBalancer> {
  return pollUntil(
    `load balancer ${id} to become ACTIVE`,
    async () => {
      const lb = (await client.get<{ loadbalancer: LoadBalancer }>('load-balancer', `/v2/lbaas/loadbalancers/${id}`))
        .loadbalancer;
      if (lb.provisioning_status === 'ERROR') throw new Error(`load balancer ${id} went to ERROR`);
      return lb;
    },
    (lb) => lb.provisioning_status === 'ACTIVE',
    timeoutMs,
  );
}
