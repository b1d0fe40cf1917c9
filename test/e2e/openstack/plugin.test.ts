// The OpenStack plugin through the host runtime against the real lab OpenStack (keystone, nova, neutron, octavia):
// every method, with what Nova, Neutron and Octavia hold afterwards. The host logs in to Keystone with a `keystone`
// credentials entry for the test's project, hands the plugin the catalog and attaches the token to its requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNode, testPort, testService } from '../../../host/src/conformance/index.ts';
import type { Node, Service } from '../../../host/src/abi/index.ts';
import type { LabOpenStack } from '../../../lab/clouds/openstack/index.ts';
import { loadOpenStackPlugin, type OpenStackPlugin } from '../../../lab/plugins/index.ts';
import {
  addressOf,
  type Estate,
  keystoneLogin,
  makeEstate,
  membersByPool,
  mutations,
  octaviaTree,
} from './support/estate.ts';
import { LAB_START_TIMEOUT_MS, labOpenStack } from './support/lab.ts';

const CLUSTER = 'e2e';
const CIDR = '192.168.78.0/24';
// Octavia's noop worker takes seconds per change on a busy machine: the plugin waits as OCCM would over 16 steps
// (72 s) and the host's deadline is above that.
const WAIT = '[Environment]\nOCCM_WAIT_LB_ACTIVE_STEPS = 16\n';
const CALL_TIMEOUT_MS = 100_000;
const LB_TIMEOUT_MS = 300_000;

let stack: LabOpenStack;
let estate: Estate;
let plugin: OpenStackPlugin;

function cloudConfig(extra = ''): string {
  return `[Global]\nregion = RegionOne\n[Route]\nrouter-id = ${estate.network.routerId}\n${WAIT}${extra}`;
}

async function loadWith(config: string): Promise<OpenStackPlugin> {
  return loadOpenStackPlugin({
    cloudConfig: config,
    clusterName: CLUSTER,
    keystone: keystoneLogin(estate.project),
    callTimeoutMs: CALL_TIMEOUT_MS,
  });
}

const server = (name: string) => estate.servers.get(name)!;

/** The Node the kubelet and the node controller make for a server: its providerID and InternalIP. */
function nodeOf(name: string): Node {
  const s = server(name);
  return testNode({
    name,
    providerID: `openstack:///${s.id}`,
    addresses: [{ type: 'InternalIP', address: addressOf(s) }],
  });
}

beforeAll(async () => {
  stack = await labOpenStack();
  estate = await makeEstate(stack, 'e2e-osplugin', CIDR, ['node-a', 'node-b'], ['node-c']);
  // OCCM's Hostname and ExternalIP sources besides nova's addresses.
  const a = server('node-a');
  await estate.project.client.put('compute', `/servers/${a.id}`, { server: { accessIPv4: '203.0.113.10' } });
  await estate.project.client.put('compute', `/servers/${a.id}/metadata`, { metadata: { hostname: 'node-a.lab' } });
  plugin = await loadWith(cloudConfig());
}, LAB_START_TIMEOUT_MS);

afterAll(async () => {
  await plugin?.close();
}, 120_000);

describe('openstack plugin: InstancesV2 and Zones', () => {
  it("describes a server as OCCM does: providerID, flavor name, zone, region, addresses in OCCM's order", async () => {
    const a = server('node-a');
    const byName = await plugin.call('instanceMetadata', { node: testNode({ name: 'node-a' }) });
    expect(byName).toEqual({
      providerID: `openstack:///${a.id}`,
      instanceType: 'm1.small',
      zone: 'nova',
      region: 'RegionOne',
      // The lab's ports stay DOWN (the fake virt driver plugs nothing), so nova's addresses come last, after the
      // access IP and the metadata hostname.
      nodeAddresses: [
        { type: 'ExternalIP', address: '203.0.113.10' },
        { type: 'Hostname', address: 'node-a.lab' },
        { type: 'InternalIP', address: addressOf(a) },
      ],
      additionalLabels: {},
    });
    const byID = await plugin.call('instanceMetadata', {
      node: testNode({ name: 'other', providerID: byName.providerID }),
    });
    expect(byID).toEqual(byName);
  });

  it('takes [Networking] and OS_CCM_REGIONAL as OCCM does', async () => {
    const a = server('node-a');
    const configured = await loadWith(
      cloudConfig(
        `OS_CCM_REGIONAL = true\n[Networking]\npublic-network-name = ${estate.networkName}\naddress-sort-order = ${CIDR}\n`,
      ),
    );
    try {
      const meta = await configured.call('instanceMetadata', { node: testNode({ name: 'node-a' }) });
      expect(meta.providerID).toBe(`openstack://RegionOne/${a.id}`);
      // The project network named public: its address is an ExternalIP, sorted first by address-sort-order.
      expect(meta.nodeAddresses).toEqual([
        { type: 'ExternalIP', address: addressOf(a) },
        { type: 'ExternalIP', address: '203.0.113.10' },
        { type: 'Hostname', address: 'node-a.lab' },
      ]);
      // A node named by the regional providerID is found; one of another region is refused.
      const regional = testNode({ name: 'x', providerID: meta.providerID });
      expect(await configured.call('instanceExists', { node: regional })).toEqual({ exists: true });
      const elsewhere = testNode({ name: 'x', providerID: `openstack://RegionTwo/${a.id}` });
      await expect(configured.call('instanceExists', { node: elsewhere })).rejects.toMatchObject({ code: 'Invalid' });
    } finally {
      await configured.close();
    }
    const internalOnly = await loadWith(cloudConfig(`[Networking]\ninternal-network-name = elsewhere\n`));
    try {
      const meta = await internalOnly.call('instanceMetadata', { node: testNode({ name: 'node-a' }) });
      expect(meta.nodeAddresses.map((n) => n.address)).toEqual(['203.0.113.10', 'node-a.lab']);
    } finally {
      await internalOnly.close();
    }
  });

  it('counts a SHUTOFF server as existing and shut down, an unknown one as gone', async () => {
    const stopped = testNode({ name: 'node-c' });
    expect(await plugin.call('instanceExists', { node: stopped })).toEqual({ exists: true });
    expect(await plugin.call('instanceShutdown', { node: stopped })).toEqual({ shutdown: true });
    expect(await plugin.call('instanceShutdown', { node: testNode({ name: 'node-a' }) })).toEqual({ shutdown: false });
    const ghost = testNode({ name: 'ghost' });
    const gone = testNode({ name: 'old', providerID: 'openstack:///00000000-0000-4000-8000-000000000000' });
    for (const node of [ghost, gone]) {
      expect(await plugin.call('instanceExists', { node })).toEqual({ exists: false });
      await expect(plugin.call('instanceShutdown', { node })).rejects.toMatchObject({ code: 'InstanceNotFound' });
      await expect(plugin.call('instanceMetadata', { node })).rejects.toMatchObject({ code: 'InstanceNotFound' });
    }
  });

  it('answers zones from the server, by name and by providerID', async () => {
    const providerID = `openstack:///${server('node-b').id}`;
    const zone = { failureDomain: 'nova', region: 'RegionOne' };
    expect(await plugin.call('getZoneByNodeName', { nodeName: 'node-b' })).toEqual(zone);
    expect(await plugin.call('getZoneByProviderID', { providerID })).toEqual(zone);
    expect(await plugin.call('getZone', {})).toEqual({ failureDomain: '', region: 'RegionOne' });
    await expect(plugin.call('getZoneByNodeName', { nodeName: 'ghost' })).rejects.toMatchObject({
      code: 'InstanceNotFound',
    });
  });
});

describe('openstack plugin: Routes', () => {
  const destination = '10.244.7.0/24';
  const routerPath = () => `/v2.0/routers/${estate.network.routerId}`;
  const routerRoutes = async () =>
    (await estate.project.client.get<{ router: { routes: unknown[] } }>('network', routerPath())).router.routes;
  const addressPairs = async () => {
    const { ports } = await estate.project.client.get<{
      ports: Array<{ allowed_address_pairs: Array<{ ip_address: string }> }>;
    }>('network', `/v2.0/ports?device_id=${server('node-a').id}`);
    return ports.flatMap((p) => p.allowed_address_pairs.map((pair) => pair.ip_address));
  };

  it("adds the route to the router and allows it on the target node's port; lists it for the cluster only", async () => {
    const route = {
      name: '',
      targetNode: 'node-a',
      targetNodeAddresses: [],
      destinationCIDR: destination,
      blackhole: false,
    };
    await plugin.call('createRoute', { clusterName: CLUSTER, nameHint: 'uid', route });
    await plugin.call('createRoute', { clusterName: CLUSTER, nameHint: 'uid', route });
    expect(await routerRoutes()).toEqual([{ destination, nexthop: addressOf(server('node-a')) }]);
    expect(await addressPairs()).toEqual([destination]);
    expect(await plugin.call('listRoutes', { clusterName: CLUSTER })).toEqual({
      routes: [
        {
          name: destination,
          targetNode: 'node-a',
          targetNodeAddresses: [],
          destinationCIDR: destination,
          blackhole: false,
        },
      ],
    });
    expect(await plugin.call('listRoutes', { clusterName: 'other' })).toEqual({ routes: [] });
    await expect(plugin.call('createRoute', { clusterName: 'other', nameHint: 'uid', route })).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringContaining('serves cluster e2e'),
    });
  });

  it('lists a next hop no server has as a blackhole, and deletes it', async () => {
    await estate.project.client.put('network', `${routerPath()}/add_extraroutes`, {
      router: { routes: [{ destination: '10.244.9.0/24', nexthop: '192.168.78.250' }] },
    });
    const { routes } = await plugin.call('listRoutes', { clusterName: CLUSTER });
    const blackhole = routes.find((r) => r.destinationCIDR === '10.244.9.0/24')!;
    expect(blackhole).toMatchObject({ targetNode: '192.168.78.250', blackhole: true });
    await plugin.call('deleteRoute', { clusterName: CLUSTER, route: blackhole });
    expect(await routerRoutes()).toEqual([{ destination, nexthop: addressOf(server('node-a')) }]);
  });

  it('removes the route and the address pair, and deleting again succeeds', async () => {
    const { routes } = await plugin.call('listRoutes', { clusterName: CLUSTER });
    await plugin.call('deleteRoute', { clusterName: CLUSTER, route: routes[0]! });
    await plugin.call('deleteRoute', { clusterName: CLUSTER, route: routes[0]! });
    expect(await routerRoutes()).toEqual([]);
    expect(await addressPairs()).toEqual([]);
    expect(await plugin.call('listRoutes', { clusterName: CLUSTER })).toEqual({ routes: [] });
  });
});

describe('openstack plugin: LoadBalancer on Octavia', () => {
  const L = 'loadbalancer.openstack.org/';
  const lbName = 'kube_service_e2e_shop_web';
  let service: Service;
  const octavia = () => octaviaTree(estate.project.client, lbName);

  beforeAll(() => {
    service = testService({
      name: 'web',
      namespace: 'shop',
      ports: [testPort(80, 30080), testPort(443, 30443)],
      sessionAffinity: 'ClientIP',
      loadBalancerSourceRanges: ['10.0.0.0/8'],
      annotations: {
        'service.beta.kubernetes.io/openstack-internal-load-balancer': 'true',
        [`${L}connection-limit`]: '100',
        [`${L}lb-method`]: 'LEAST_CONNECTIONS',
        [`${L}enable-health-monitor`]: 'true',
        [`${L}health-monitor-delay`]: '7',
      },
    });
  });

  it(
    "creates OCCM's load balancer: names, tags, VIP on the node's subnet, listeners, pools, members, monitors",
    async () => {
      expect(await plugin.call('getLoadBalancer', { clusterName: CLUSTER, service })).toMatchObject({ exists: false });
      const nodes = [nodeOf('node-a'), nodeOf('node-b')];
      const { status } = await plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes });
      const tree = (await octavia())!;
      expect(status).toEqual({ ingress: [{ ip: tree.lb.vip_address, hostname: '', ipMode: 'VIP', ports: [] }] });
      expect(tree.lb).toMatchObject({
        name: lbName,
        description: `Kubernetes external service shop/web from cluster ${CLUSTER}`,
        provisioning_status: 'ACTIVE',
        vip_subnet_id: estate.network.subnetId,
      });
      expect(tree.lb.tags.sort()).toEqual([lbName, `kubernetes-service-uid=${service.uid}`].sort());
      expect(tree.listeners.map((l) => [l.name, l.protocol, l.protocol_port, l.connection_limit, l.tags])).toEqual([
        [`listener_0_${lbName}`, 'TCP', 80, 100, [lbName]],
        [`listener_1_${lbName}`, 'TCP', 443, 100, [lbName]],
      ]);
      expect(tree.listeners.map((l) => l.allowed_cidrs)).toEqual([['10.0.0.0/8'], ['10.0.0.0/8']]);
      expect(tree.pools.map((p) => [p.name, p.protocol, p.lb_algorithm, p.session_persistence?.type])).toEqual([
        [`pool_0_${lbName}`, 'TCP', 'LEAST_CONNECTIONS', 'SOURCE_IP'],
        [`pool_1_${lbName}`, 'TCP', 'LEAST_CONNECTIONS', 'SOURCE_IP'],
      ]);
      expect(tree.pools[0]!.members.map((m) => [m.name, m.address, m.protocol_port, m.subnet_id]).sort()).toEqual([
        ['node-a', addressOf(server('node-a')), 30080, estate.network.subnetId],
        ['node-b', addressOf(server('node-b')), 30080, estate.network.subnetId],
      ]);
      expect(tree.pools.map((p) => p.monitor)).toEqual(
        [
          { name: `monitor_0_${lbName}`, type: 'TCP', delay: 7, timeout: 3, max_retries: 1, max_retries_down: 3 },
          { name: `monitor_1_${lbName}`, type: 'TCP', delay: 7, timeout: 3, max_retries: 1, max_retries_down: 3 },
        ].map((m) => expect.objectContaining(m)),
      );
    },
    LB_TIMEOUT_MS,
  );

  it(
    'answers get with the same status, for this Service only; ensures again without a change',
    async () => {
      const nodes = [nodeOf('node-a'), nodeOf('node-b')];
      const got = await plugin.call('getLoadBalancer', { clusterName: CLUSTER, service });
      const tree = (await octavia())!;
      expect(got).toEqual({
        exists: true,
        status: { ingress: [{ ip: tree.lb.vip_address, hostname: '', ipMode: 'VIP', ports: [] }] },
      });
      for (const [cluster, other] of [
        [CLUSTER, { ...service, uid: 'c0ffee00-0000-4000-8000-000000000000' }],
        ['elsewhere', service],
        [CLUSTER, { ...service, name: 'api' }],
      ] as const) {
        expect(await plugin.call('getLoadBalancer', { clusterName: cluster, service: other })).toMatchObject({
          exists: false,
        });
      }
      const before = plugin.requests.length;
      await plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes });
      expect(mutations(plugin.requests.slice(before))).toEqual([]);
    },
    LB_TIMEOUT_MS,
  );

  it(
    'updates the members of every pool to the nodes sent, with one batch update per pool',
    async () => {
      const before = plugin.requests.length;
      await plugin.call('updateLoadBalancer', { clusterName: CLUSTER, service, nodes: [nodeOf('node-b')] });
      expect(mutations(plugin.requests.slice(before)).map((r) => r.replace(/pools\/[^/]+/, 'pools/<id>'))).toEqual([
        expect.stringMatching(/^PUT .*\/v2\/lbaas\/pools\/<id>\/members$/),
        expect.stringMatching(/^PUT .*\/v2\/lbaas\/pools\/<id>\/members$/),
      ]);
      expect(membersByPool((await octavia())!)).toEqual({
        [`pool_0_${lbName}`]: ['node-b'],
        [`pool_1_${lbName}`]: ['node-b'],
      });
    },
    LB_TIMEOUT_MS,
  );

  it(
    'follows a changed Service: a port removed, listener settings, the monitor off, another method, a node selector',
    async () => {
      const changed = testService({
        ...service,
        ports: [testPort(80, 30080)],
        loadBalancerSourceRanges: ['10.0.0.0/8', '192.168.0.0/16'],
        annotations: {
          ...service.annotations,
          [`${L}connection-limit`]: '200',
          [`${L}timeout-client-data`]: '60000',
          [`${L}enable-health-monitor`]: 'false',
          [`${L}lb-method`]: 'ROUND_ROBIN',
          [`${L}node-selector`]: 'pool=web',
        },
      });
      const nodes = [nodeOf('node-a'), { ...nodeOf('node-b'), labels: { pool: 'web' } }];
      await plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: changed, nodes });
      const tree = (await octavia())!;
      expect(tree.listeners.map((l) => [l.protocol_port, l.connection_limit, l.timeout_client_data])).toEqual([
        [80, 200, 60000],
      ]);
      expect(tree.listeners[0]!.allowed_cidrs?.sort()).toEqual(['10.0.0.0/8', '192.168.0.0/16']);
      expect(tree.pools.map((p) => [p.name, p.lb_algorithm, p.monitor])).toEqual([
        [`pool_0_${lbName}`, 'ROUND_ROBIN', null],
      ]);
      expect(membersByPool(tree)).toEqual({ [`pool_0_${lbName}`]: ['node-b'] });
      service = changed;
    },
    LB_TIMEOUT_MS,
  );

  it('refuses a bad annotation as Invalid naming it, without a change to the cloud', async () => {
    const bad = { ...service, annotations: { ...service.annotations, [`${L}timeout-member-data`]: '5s' } };
    const before = plugin.requests.length;
    await expect(
      plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: bad, nodes: [nodeOf('node-a')] }),
    ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining(`${L}timeout-member-data`) });
    expect(plugin.requests.slice(before)).toEqual([]);
  });

  it(
    "leaves the load balancer of a deleted Service of the same name to that Service's deletion",
    async () => {
      const successor = { ...service, uid: 'c0ffee00-0000-4000-8000-000000000001' };
      await expect(
        plugin.call('ensureLoadBalancer', { clusterName: CLUSTER, service: successor, nodes: [nodeOf('node-a')] }),
      ).rejects.toMatchObject({ code: 'Retry', message: expect.stringContaining(service.uid) });
      await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service: successor });
      expect((await octavia())?.lb.provisioning_status).toBe('ACTIVE');
    },
    LB_TIMEOUT_MS,
  );

  it(
    'deletes the load balancer and everything in it; deleting again succeeds',
    async () => {
      await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
      expect(await octavia()).toBeNull();
      expect(await plugin.call('getLoadBalancer', { clusterName: CLUSTER, service })).toMatchObject({ exists: false });
      await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
      const { floatingips } = await estate.project.client.get<{ floatingips: unknown[] }>(
        'network',
        '/v2.0/floatingips',
      );
      expect(floatingips).toEqual([]);
    },
    LB_TIMEOUT_MS,
  );
});

describe('openstack plugin: waiting for Octavia', () => {
  it(
    'answers Retry while the load balancer is PENDING when it may not wait, and the next calls carry on',
    async () => {
      const impatient = await loadWith(cloudConfig().replace(WAIT, '[Environment]\nOCCM_WAIT_LB_ACTIVE_STEPS = 0\n'));
      const service = testService({
        name: 'patient',
        namespace: 'shop',
        ports: [testPort(80, 30081)],
        annotations: { 'service.beta.kubernetes.io/openstack-internal-load-balancer': 'true' },
      });
      const nodes = [nodeOf('node-a')];
      try {
        await expect(
          impatient.call('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes }),
        ).rejects.toMatchObject({
          code: 'Retry',
          message: expect.stringContaining('PENDING_CREATE'),
        });
        // As the service controller does after a Retry: call again until the answer is the status.
        let attempts = 1;
        let outcome = await impatient.answer('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes });
        while (outcome.kind === 'error' && outcome.error.code === 'Retry' && attempts < 120) {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          outcome = await impatient.answer('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes });
          attempts++;
        }
        expect(outcome).toMatchObject({ kind: 'ok', value: { status: { ingress: [{ ipMode: 'VIP' }] } } });
        // Exactly one load balancer was made, whatever the number of calls.
        expect(mutations(impatient.requests).filter((r) => r.startsWith('POST '))).toHaveLength(1);
      } finally {
        await impatient.close();
      }
      // Piece by piece (cascade-delete = false): monitors, pools, listeners, then the load balancer.
      const careful = await loadWith(cloudConfig('[LoadBalancer]\ncascade-delete = false\n'));
      try {
        await careful.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
        expect(
          mutations(careful.requests).map((r) => r.split(' ')[0] + ' ' + r.split('/v2/lbaas/')[1]?.split('/')[0]),
        ).toEqual(['DELETE pools', 'DELETE listeners', 'DELETE loadbalancers']);
        expect(await octaviaTree(estate.project.client, 'kube_service_e2e_shop_patient')).toBeNull();
      } finally {
        await careful.close();
      }
    },
    LB_TIMEOUT_MS * 2,
  );

  it(
    'puts a floating IP on the VIP port of an external load balancer (the lab has no VIP port to put it on)',
    async () => {
      const service = testService({ name: 'public', namespace: 'shop', ports: [testPort(80, 30082)] });
      const nodes = [nodeOf('node-a')];
      const before = plugin.requests.length;
      // Octavia's noop network driver reports a VIP port that neutron has never heard of.
      const answer = await plugin.answer('ensureLoadBalancer', { clusterName: CLUSTER, service, nodes });
      const tree = (await octaviaTree(estate.project.client, 'kube_service_e2e_shop_public'))!;
      expect(answer).toMatchObject({
        kind: 'error',
        error: { code: 'Internal', message: expect.stringContaining(`Port ${tree.lb.vip_port_id} could not be found`) },
      });
      // The floating network was found (the lab's external network) and asked for an address on that port.
      const asked = plugin.requests.slice(before);
      expect(asked).toContainEqual(expect.stringMatching(/^GET .*\/v2\.0\/networks\?router%3Aexternal=true$/));
      expect(asked).toContainEqual(expect.stringMatching(/^POST .*\/v2\.0\/floatingips$/));
      await plugin.call('ensureLoadBalancerDeleted', { clusterName: CLUSTER, service });
      expect(await octaviaTree(estate.project.client, 'kube_service_e2e_shop_public')).toBeNull();
    },
    LB_TIMEOUT_MS,
  );
});
