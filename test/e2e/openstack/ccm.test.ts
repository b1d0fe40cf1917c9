// wasm-ccm as a real process running the OpenStack plugin against the lab OpenStack (keystone, nova, neutron, octavia),
// configured with OCCM's own cloud.conf: kwok Nodes registered as a kubelet with --cloud-provider=external and
// --node-ip registers them, named after their nova servers, are initialized as OCCM initializes them; a LoadBalancer
// Service gets its Octavia load balancer and its members follow the node set; deletion leaves nothing in Octavia; pod
// CIDRs become the router's extra routes; a deleted server's NotReady Node is deleted (and its route goes), a
// shut-off one's tainted. Then the plugin from a ConfigMap, swapped to a version variant while load balancers are
// created and back while their members change, with no failed reconcile.
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type V1Node, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CCMProcess,
  deleteNodes,
  hasTaint,
  OPENSTACK_PLUGIN,
  openStackCloudConf,
  openStackPluginArgs,
  type OpenStackCCMFiles,
  putPluginConfigMap,
  setReady,
  SHUTDOWN_TAINT_KEY,
  UNINITIALIZED_TAINT,
  writeOpenStackCCMFiles,
} from '../../../lab/ccm/index.ts';
import type { LabOpenStack } from '../../../lab/clouds/openstack/index.ts';
import {
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  KWOK_ANNOTATION,
  loadManifests,
  startKwok,
  uniqueName,
} from '../../../lab/controlplane/index.ts';
import { openStackVariant } from '../../../lab/plugins/index.ts';
import { eventually, type ManagedProcess } from '../../../lab/process/index.ts';
import { deleteAllServices, patchNode } from '../service/support/helpers.ts';
import {
  addressList,
  deleteServer,
  kubeletNodeFor,
  lbMembers,
  octaviaLeft,
  readNodeOrGone,
  routerRoutes,
} from './support/cluster.ts';
import { addressOf, type Estate, keystoneLogin, makeEstate, stopServer } from './support/estate.ts';
import {
  failedReconciles,
  nonZeroSamples,
  PLUGIN_KEY,
  servingVersionOf,
  startSwapCCM,
  type SwapCCM,
} from './support/swap.ts';
import { LAB_START_TIMEOUT_MS, labOpenStack } from './support/lab.ts';

const CLUSTER = 'osccm';
const NETWORK_CIDR = '192.168.79.0/24';
// A range no other test file uses: only our Nodes' pod CIDRs are routed.
const CLUSTER_CIDR = '10.214.0.0/16';
const POD_PREFIX = '10.214.';
// Every load balancer internal: the lab's Octavia (noop network driver) makes VIP ports Neutron does not have, so a
// floating IP cannot be put on one (lab/clouds/openstack/README.md, "Limits"). Octavia's noop worker takes seconds
// per change on a busy machine: the plugin waits as OCCM would over 16 steps (72 s) and the host's deadline is above
// that, so a reconcile never has to answer Retry.
const EXTRA = '[LoadBalancer]\ninternal-lb = true\n[Environment]\nOCCM_WAIT_LB_ACTIVE_STEPS = 16\n';
const CALL_TIMEOUT = '100s';
const LB_TIMEOUT_MS = 240_000;
const EXCLUDE_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';
const SERVERS = ['osccm-a', 'osccm-b', 'osccm-c', 'osccm-d'] as const;

describe('wasm-ccm with the OpenStack plugin against the lab OpenStack', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const namespace = uniqueName('e2e-osccm');
  const nodeNames: string[] = [];
  let stack: LabOpenStack;
  let estate: Estate;
  let files: OpenStackCCMFiles;
  let token: string;
  let kwok: ManagedProcess;
  let ccm: CCMProcess | undefined;
  let swap: SwapCCM | undefined;
  // The version variant the plugin is swapped to, built (or taken from the cache) while the stack starts.
  let variant: Promise<Uint8Array>;

  const server = (name: string) => estate.servers.get(name)!;
  const address = (name: string) => addressOf(server(name));
  const podCIDR = (name: string) => `${POD_PREFIX}${SERVERS.indexOf(name as (typeof SERVERS)[number])}.0/24`;
  const lbName = (service: string) => `kube_service_${CLUSTER}_${namespace}_${service}`;
  const client = () => estate.project.client;

  async function registerNode(name: string): Promise<void> {
    nodeNames.push(name);
    await core.createNode({ body: kubeletNodeFor(name, address(name), podCIDR(name)) });
  }

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    ({ token } = await ccmIdentity(info, admin));
    variant = openStackVariant(2);
    // Awaited by the swap test; a failed build fails that test, not the process before it gets there.
    variant.catch(() => undefined);
    stack = await labOpenStack();
    estate = await makeEstate(stack, 'e2e-osccm', NETWORK_CIDR, SERVERS, []);
    // OCCM's ExternalIP and Hostname sources besides nova's addresses, on one server.
    const a = server('osccm-a');
    await client().put('compute', `/servers/${a.id}`, { server: { accessIPv4: '203.0.113.10' } });
    await client().put('compute', `/servers/${a.id}/metadata`, { metadata: { hostname: 'osccm-a.lab' } });
    const conf = openStackCloudConf({
      login: keystoneLogin(estate.project),
      routerId: estate.network.routerId,
      extra: EXTRA,
    });
    files = writeOpenStackCCMFiles(info.dir, 'osccm', conf);
    kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: mkdtempSync(join(info.dir, 'kwok-os-')) });
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    ccm = new CCMProcess({
      info,
      token,
      args: [
        ...openStackPluginArgs(files, CALL_TIMEOUT),
        `--cluster-name=${CLUSTER}`,
        `--cluster-cidr=${CLUSTER_CIDR}`,
        '--route-reconciliation-period=1s',
        '--node-monitor-period=1s',
      ],
    });
    await ccm.ready(120_000);
    for (const name of ['osccm-a', 'osccm-b', 'osccm-c']) await registerNode(name);
  }, LAB_START_TIMEOUT_MS);

  afterAll(async () => {
    await deleteAllServices(core, namespace, LB_TIMEOUT_MS).catch(() => undefined);
    const code = await ccm?.stop();
    const swapCode = await swap?.stop();
    await kwok?.stop();
    await deleteNodes(admin, nodeNames);
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    expect(code ?? 0).toBe(0);
    expect(swapCode ?? 0).toBe(0);
  }, 10 * 60_000);

  async function initialized(name: string): Promise<V1Node> {
    return eventually(
      `${name} initialized`,
      async () => {
        const n = await core.readNode({ name });
        return hasTaint(n, UNINITIALIZED_TAINT.key) ? undefined : n;
      },
      60_000,
    );
  }

  it("initializes the Nodes by server name: providerID, flavor, zone, region, OCCM's addresses", async () => {
    const expected: Record<string, string[]> = {
      // The provided node IP first, then OCCM's other addresses (access IP, metadata hostname).
      'osccm-a': [`InternalIP=${address('osccm-a')}`, 'ExternalIP=203.0.113.10', 'Hostname=osccm-a.lab'],
      // No Hostname from the cloud: the kubelet's stays.
      'osccm-b': [`InternalIP=${address('osccm-b')}`, 'Hostname=osccm-b'],
      'osccm-c': [`InternalIP=${address('osccm-c')}`, 'Hostname=osccm-c'],
    };
    for (const [name, addresses] of Object.entries(expected)) {
      const node = await initialized(name);
      expect(node.spec?.providerID).toBe(`openstack:///${server(name).id}`);
      expect(node.metadata?.labels).toMatchObject({
        'node.kubernetes.io/instance-type': 'm1.small',
        'topology.kubernetes.io/zone': 'nova',
        'topology.kubernetes.io/region': 'RegionOne',
      });
      await eventually(`${name}'s cloud addresses`, async () => {
        const got = addressList(await core.readNode({ name }));
        return JSON.stringify(got) === JSON.stringify(addresses) ? true : undefined;
      });
    }
  });

  it("adds an extra route per pod CIDR to the router, via the node's address", async () => {
    const want = Object.fromEntries(['osccm-a', 'osccm-b', 'osccm-c'].map((n) => [podCIDR(n), address(n)]));
    await eventually(
      'extra routes',
      async () => {
        const got = await routerRoutes(client(), estate.network.routerId, POD_PREFIX);
        return JSON.stringify(got) === JSON.stringify(want) ? true : undefined;
      },
      60_000,
      500,
    );
  });

  it(
    'gives a LoadBalancer Service its Octavia load balancer, follows the node set, and deletes everything',
    async () => {
      await core.createNamespacedService({ namespace, body: webService() });
      const ingress = await eventually(
        'ingress IP',
        async () => {
          const svc = await core.readNamespacedService({ namespace, name: 'web' });
          return svc.status?.loadBalancer?.ingress?.[0]?.ip;
        },
        LB_TIMEOUT_MS,
        500,
      );
      const nodePort = (await core.readNamespacedService({ namespace, name: 'web' })).spec?.ports?.[0]?.nodePort;
      const member = (name: string) => `${name}=${address(name)}:${nodePort}`;
      const membersBecome = (what: string, names: string[]) =>
        eventually(
          what,
          async () => {
            const got = await lbMembers(client(), lbName('web'));
            return JSON.stringify(got) === JSON.stringify(names.map(member).sort()) ? true : undefined;
          },
          LB_TIMEOUT_MS,
          1000,
        );
      // The lab's Octavia puts every VIP on its noop driver's address; it is the Service's.
      expect(ingress).toBe('198.51.100.1');
      await membersBecome('members: every node', ['osccm-a', 'osccm-b', 'osccm-c']);

      await registerNode('osccm-d');
      await initialized('osccm-d');
      await membersBecome('members: a node added', ['osccm-a', 'osccm-b', 'osccm-c', 'osccm-d']);
      await patchNode(core, 'osccm-d', { metadata: { labels: { [EXCLUDE_LABEL]: 'true' } } });
      await membersBecome('members: a node excluded', ['osccm-a', 'osccm-b', 'osccm-c']);
      await patchNode(core, 'osccm-d', { metadata: { labels: { [EXCLUDE_LABEL]: null } } });
      await membersBecome('members: the node back', ['osccm-a', 'osccm-b', 'osccm-c', 'osccm-d']);
      // The added node's pod CIDR is routed too.
      await eventually('route of the added node', async () => {
        const got = await routerRoutes(client(), estate.network.routerId, POD_PREFIX);
        return got[podCIDR('osccm-d')] === address('osccm-d') ? true : undefined;
      });

      await core.deleteNamespacedService({ namespace, name: 'web' });
      await eventually(
        'Service gone',
        async () => ((await core.listNamespacedService({ namespace })).items.length === 0 ? true : undefined),
        LB_TIMEOUT_MS,
        500,
      );
      expect(await octaviaLeft(client(), lbName(''))).toEqual({ loadbalancers: [], listeners: [], pools: [] });
    },
    3 * LB_TIMEOUT_MS,
  );

  it("deletes a deleted server's NotReady Node (and its route), taints a shut-off server's", async () => {
    await deleteServer(client(), server('osccm-c').id);
    await stopServer(client(), server('osccm-d').id);
    // The kubelets stop: kwok lets go of the Nodes, and their Ready condition turns False.
    for (const name of ['osccm-c', 'osccm-d']) {
      await patchNode(core, name, { metadata: { annotations: { [KWOK_ANNOTATION]: null } } });
      await setReady(admin, name, false);
    }
    await eventually('shutdown taint', async () =>
      hasTaint(await core.readNode({ name: 'osccm-d' }), SHUTDOWN_TAINT_KEY),
    );
    await eventually('deleted server, Node deleted', async () =>
      (await readNodeOrGone(core, 'osccm-c')) === undefined ? true : undefined,
    );
    const want = Object.fromEntries(['osccm-a', 'osccm-b', 'osccm-d'].map((n) => [podCIDR(n), address(n)]));
    await eventually(
      "the deleted node's route gone",
      async () => {
        const got = await routerRoutes(client(), estate.network.routerId, POD_PREFIX);
        return JSON.stringify(got) === JSON.stringify(want) ? true : undefined;
      },
      60_000,
      500,
    );
    // The shut-off one stays.
    expect((await readNodeOrGone(core, 'osccm-d'))?.metadata?.name).toBe('osccm-d');
  }, 120_000);

  it(
    'serves Services from the plugin in a ConfigMap, swapped mid-reconcile to a variant and back, none failing',
    async () => {
      const [v1, v2] = [new Uint8Array(readFileSync(OPENSTACK_PLUGIN)), await variant];
      expect(await ccm?.stop()).toBe(0);
      ccm = undefined;
      swap = await startSwapCCM({
        info,
        token,
        core,
        files,
        configMap: uniqueName('os-plugin'),
        module: v1,
        callTimeout: CALL_TIMEOUT,
        args: [`--cluster-name=${CLUSTER}`, '--controllers=service', '--concurrent-service-syncs=4'],
      });
      const { base, configMap } = swap;
      expect(await servingVersionOf(base)).toBe('1.0.0');
      const services = ['s0', 's1', 's2', 's3'];
      const ingressOf = async (name: string) =>
        (await core.readNamespacedService({ namespace, name })).status?.loadBalancer?.ingress?.[0]?.ip;
      const serving = (version: string) =>
        eventually(`serving ${version}`, async () => (await servingVersionOf(base)) === version || undefined, 60_000);
      const membersBecome = (nodes: string[]) => Promise.all(services.map((name) => membersOf(name, nodes)));

      // Four load balancers made at once; v2 comes while they are.
      await Promise.all(services.map((name) => core.createNamespacedService({ namespace, body: webService(name) })));
      await eventually('ensures under way', async () => (await ensuringEvents()) > 0 || undefined, 60_000, 200);
      const pendingAtSwap = (await Promise.all(services.map(ingressOf))).filter((ip) => ip === undefined).length;
      await putPluginConfigMap(core, configMap, PLUGIN_KEY, v2);
      await serving('2.0.0');
      expect(pendingAtSwap).toBeGreaterThan(0);
      for (const name of services) await eventually(`${name}'s ingress`, () => ingressOf(name), LB_TIMEOUT_MS, 500);
      await membersBecome(['osccm-a', 'osccm-b', 'osccm-d']);
      const swapped = await swap.ccm.waitForLog('the swap log line', (r) => r.msg === 'plugin swapped');
      expect(swapped).toMatchObject({ provider: 'openstack', from: '1.0.0', to: '2.0.0' });

      // A node leaves all four; back to v1 while their members are updated. (Not while they are made: upstream's
      // node sync then races the first ensure, updating a load balancer not there yet.)
      await patchNode(core, 'osccm-b', { metadata: { labels: { [EXCLUDE_LABEL]: 'true' } } });
      await putPluginConfigMap(core, configMap, PLUGIN_KEY, v1);
      await serving('1.0.0');
      await membersBecome(['osccm-a', 'osccm-d']);
      await patchNode(core, 'osccm-b', { metadata: { labels: { [EXCLUDE_LABEL]: null } } });
      await membersBecome(['osccm-a', 'osccm-b', 'osccm-d']);

      await deleteAllServices(core, namespace, LB_TIMEOUT_MS);
      expect(await octaviaLeft(client(), lbName(''))).toEqual({ loadbalancers: [], listeners: [], pools: [] });
      expect(await failedReconciles(core, namespace)).toEqual([]);
      const metrics = await swap.metrics();
      // Every call but updateLoadBalancer without an error. Upstream's node sync, run by the new process's first node
      // list, can update a load balancer a concurrent first ensure has not made yet ("does not exist", Internal): the
      // Service's next sync ensures it, and no reconcile fails (above). That race is upstream's, not the swap's.
      const callErrors = nonZeroSamples(metrics, 'wasm_ccm_plugin_call_errors_total');
      expect(callErrors.filter((sample) => !sample.includes('method="updateLoadBalancer"'))).toEqual([]);
      if (callErrors.length > 0) console.log(`openstack ccm: node-sync updates before the first ensure: ${callErrors}`);
      expect(nonZeroSamples(metrics, 'service_controller_nodesync_error_total')).toEqual([]);
      expect(metrics).toMatch(/^wasm_ccm_plugin_swaps_total\{provider="openstack",result="applied"\} 2$/m);
      expect(swap.ccm.process.running).toBe(true);
    },
    6 * LB_TIMEOUT_MS,
  );

  /** Waits until the Service's load balancer has one member per node, on its NodePort. */
  async function membersOf(service: string, nodes: string[]): Promise<void> {
    const nodePort = (await core.readNamespacedService({ namespace, name: service })).spec?.ports?.[0]?.nodePort;
    const want = JSON.stringify(nodes.map((n) => `${n}=${address(n)}:${nodePort}`).sort());
    await eventually(
      `${service}'s members: ${nodes.join(', ')}`,
      async () => JSON.stringify(await lbMembers(client(), lbName(service))) === want || undefined,
      LB_TIMEOUT_MS,
      1000,
    );
  }

  /** EnsuringLoadBalancer events of the namespace. */
  async function ensuringEvents(): Promise<number> {
    const list = await core.listNamespacedEvent({ namespace, fieldSelector: 'reason=EnsuringLoadBalancer' });
    return list.items.length;
  }

  function webService(name = 'web'): V1Service {
    return {
      metadata: { name },
      spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
    };
  }
});
