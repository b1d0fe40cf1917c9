// The lab OpenStack of lab/clouds/openstack against its own real APIs: keystone issues a token, nova boots servers
// ACTIVE on a project's own VLAN network, octavia builds a load balancer with a listener, a pool and two members,
// neutron's router takes extra routes atomically, and stop() leaves no process of the stack behind.
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bootServer,
  createRoutedNetwork,
  createTestProject,
  deleteServer,
  issueToken,
  listLoadBalancers,
  type OpenStack,
  type Server,
  startOpenStack,
  type TestProject,
  type TenantNetwork,
  waitLoadBalancerActive,
} from '../../../lab/clouds/openstack/index.ts';

// A cold machine initializes the cached state first (~5 min on 2 busy cores) and then starts (~1.5 min).
const START_TIMEOUT_MS = 20 * 60_000;
const TENANT_CIDR = '192.168.77.0/24';

/** Whether `address` is in the /24 `cidr`. */
function inSlash24(address: string, cidr: string): boolean {
  return address.split('.').slice(0, 3).join('.') === cidr.split('.').slice(0, 3).join('.');
}

/** Gone, or a zombie: no longer running. */
function running(pid: number): boolean {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return false;
  try {
    const stat = readFileSync(path, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

function rssMiB(pids: readonly number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kib += Number(match?.[1] ?? 0);
    } catch {
      // Exited meanwhile.
    }
  }
  return Math.round(kib / 1024);
}

function serverAddresses(server: Server): string[] {
  return Object.values(server.addresses).flatMap((list) => list.map((a) => a.addr));
}

describe('the lab OpenStack', () => {
  let stack: OpenStack;
  let project: TestProject;
  let network: TenantNetwork;
  const servers: Server[] = [];
  let stopped = false;

  beforeAll(async () => {
    const started = Date.now();
    stack = await startOpenStack({ log: (message) => console.log(`openstack: ${message}`) });
    console.log(
      `openstack: ready in ${Date.now() - started} ms (${JSON.stringify(stack.timings)}), ` +
        `${stack.pids().length} processes, ${rssMiB(stack.pids())} MiB RSS`,
    );
    project = await createTestProject(stack.adminClient(), 'e2e-stack');
    network = await createRoutedNetwork(project.client, {
      name: 'e2e-stack',
      cidr: TENANT_CIDR,
      externalNetworkId: stack.resources.external.networkId,
    });
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    if (stack !== undefined && !stopped) await stack.stop();
  }, 120_000);

  it('issues a project-scoped token whose catalog names every service', async () => {
    const token = await issueToken(project.credentials);
    expect(token.id.length).toBeGreaterThan(20);
    expect(token.projectId).toBe(project.projectId);
    expect([...token.endpoints.keys()].sort()).toEqual(
      ['compute', 'identity', 'image', 'load-balancer', 'network', 'placement'].sort(),
    );
    expect(token.endpoints.get('identity')).toBe(stack.authUrl);
  });

  it('boots servers ACTIVE with an address on the project network', async () => {
    const boot = (name: string): Promise<Server> =>
      bootServer(project.client, {
        name,
        flavorId: stack.resources.flavor.id,
        imageId: stack.resources.image.id,
        networkId: network.networkId,
        metadata: { role: 'e2e' },
      });
    servers.push(...(await Promise.all([boot('e2e-stack-1'), boot('e2e-stack-2')])));
    for (const server of servers) {
      expect(server.status).toBe('ACTIVE');
      expect(server.metadata).toEqual({ role: 'e2e' });
      expect(server['OS-EXT-AZ:availability_zone']).toBe('nova');
      const addresses = serverAddresses(server);
      expect(addresses).toHaveLength(1);
      expect(inSlash24(addresses[0] ?? '', TENANT_CIDR)).toBe(true);
    }
    // Each server's port is bound by the Open vSwitch agent on the compute host (no agent: no binding, no boot).
    const { ports } = await stack.adminClient().get<{
      ports: Array<{ 'binding:vif_type': string; 'binding:host_id': string }>;
    }>('network', `/v2.0/ports?device_id=${servers[0]?.id ?? ''}`);
    expect(ports.map((p) => [p['binding:vif_type'], p['binding:host_id']])).toEqual([['ovs', 'lab-compute']]);
  });

  it('builds an ACTIVE Octavia load balancer with a listener, a pool and two members', async () => {
    const lb = project.client;
    const { loadbalancer } = await lb.post<{ loadbalancer: { id: string } }>(
      'load-balancer',
      '/v2/lbaas/loadbalancers',
      {
        loadbalancer: { name: 'e2e-stack-lb', vip_subnet_id: network.subnetId },
      },
    );
    await waitLoadBalancerActive(lb, loadbalancer.id);
    const { listener } = await lb.post<{ listener: { id: string } }>('load-balancer', '/v2/lbaas/listeners', {
      listener: { name: 'e2e-stack-listener', protocol: 'TCP', protocol_port: 80, loadbalancer_id: loadbalancer.id },
    });
    await waitLoadBalancerActive(lb, loadbalancer.id);
    const { pool } = await lb.post<{ pool: { id: string } }>('load-balancer', '/v2/lbaas/pools', {
      pool: { name: 'e2e-stack-pool', protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN', listener_id: listener.id },
    });
    await waitLoadBalancerActive(lb, loadbalancer.id);
    const members = servers.map((server, i) => ({
      name: `member-${i}`,
      address: serverAddresses(server)[0],
      protocol_port: 30080,
      subnet_id: network.subnetId,
    }));
    await lb.request('load-balancer', 'PUT', `/v2/lbaas/pools/${pool.id}/members`, { body: { members } });
    const active = await waitLoadBalancerActive(lb, loadbalancer.id);
    // Octavia's noop network driver makes no neutron port: the VIP is its fixed stand-in address.
    expect(active.vip_subnet_id).toBe(network.subnetId);
    expect(active.vip_address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    const { statuses } = await lb.get<{
      statuses: {
        loadbalancer: { listeners: Array<{ id: string; pools: Array<{ id: string; members: unknown[] }> }> };
      };
    }>('load-balancer', `/v2/lbaas/loadbalancers/${loadbalancer.id}/status`);
    expect(statuses.loadbalancer.listeners.map((l) => l.id)).toEqual([listener.id]);
    expect(statuses.loadbalancer.listeners[0]?.pools.map((p) => p.id)).toEqual([pool.id]);
    expect(statuses.loadbalancer.listeners[0]?.pools[0]?.members).toHaveLength(2);
    const listed = await listLoadBalancers(lb);
    expect(listed.map((l) => l.id)).toEqual([loadbalancer.id]);
  });

  it('adds and removes router extra routes atomically (add_extraroutes)', async () => {
    const nexthop = serverAddresses(servers[0] as Server)[0] ?? '';
    const route = { destination: '10.213.5.0/24', nexthop };
    const path = `/v2.0/routers/${network.routerId}`;
    const added = await project.client.put<{ router: { routes: unknown[] } }>('network', `${path}/add_extraroutes`, {
      router: { routes: [route] },
    });
    expect(added.router.routes).toEqual([route]);
    const read = await project.client.get<{ router: { routes: unknown[] } }>('network', path);
    expect(read.router.routes).toEqual([route]);
    const removed = await project.client.put<{ router: { routes: unknown[] } }>(
      'network',
      `${path}/remove_extraroutes`,
      { router: { routes: [route] } },
    );
    expect(removed.router.routes).toEqual([]);
  });

  it('deletes a server', async () => {
    const server = servers.pop() as Server;
    await deleteServer(project.client, server.id);
    const { servers: left } = await project.client.get<{ servers: Array<{ id: string }> }>('compute', '/servers');
    expect(left.map((s) => s.id)).toEqual(servers.map((s) => s.id));
  });

  it('leaves no process and no network namespace behind once stopped', async () => {
    const pids = stack.pids();
    // The stack runs MariaDB, RabbitMQ, Open vSwitch and a dozen OpenStack services, some with workers.
    expect(pids.length).toBeGreaterThan(20);
    expect(stack.failures()).toEqual([]);
    const started = Date.now();
    await stack.stop();
    stopped = true;
    console.log(`openstack: stopped in ${Date.now() - started} ms`);
    expect(pids.filter(running)).toEqual([]);
    expect(stack.pids()).toEqual([]);
    const netns = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
    expect(netns).not.toContain(stack.runId);
  }, 120_000);
});
