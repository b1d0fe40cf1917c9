// One side of the OpenStack parity test: a fresh project of the lab OpenStack seeded with the same estate (a routed
// network, four servers at the same addresses), Nodes named after the servers, and one CCM (OCCM v1.36.0, or
// wasm-ccm with plugins/openstack) running cloud-node, cloud-node-lifecycle, service and route with the same flags
// and the same cloud.conf. The scenario: the Nodes initialized, their pod CIDRs routed on the router, a
// LoadBalancer Service on Octavia, a node joining and one excluded, a server deleted, one shut off, the Service
// deleted. The result is a flattened snapshot per checkpoint (parity-snapshot.ts).
import { copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import {
  deleteNodes,
  hasTaint,
  kubeletNode,
  SHUTDOWN_TAINT_KEY,
  UNINITIALIZED_TAINT,
} from '../../../../lab/ccm/index.ts';
import { deleteServer, type LabOpenStack } from '../../../../lab/clouds/openstack/index.ts';
import { eventually } from '../../../../lab/process/index.ts';
import { type Estate, makeEstate, stopServer } from './estate.ts';
import { activeMembers, idNames, routerRoutes } from './parity-cloud.ts';
import { startSideCCM } from './parity-ccm.ts';
import { type OpenStackImpl, PARITY_CLUSTER, type ParityContext, SERVICE, type Side } from './parity-side.ts';
import { clearEvents, eventsOf, snapshotCheckpoint } from './parity-snapshot.ts';

const SUBNET = '192.168.90.0/24';
/** Servers and the Nodes named after them, at the same address on both sides. */
const ADDRESSES: Readonly<Record<string, string>> = {
  'osparity-a': '192.168.90.10',
  'osparity-b': '192.168.90.11',
  'osparity-c': '192.168.90.12',
  'osparity-d': '192.168.90.13',
};
const [A, B, C, D] = Object.keys(ADDRESSES) as [string, string, string, string];
const POD_CIDRS: Readonly<Record<string, string>> = {
  [A]: '10.245.1.0/24',
  [B]: '10.245.2.0/24',
  [C]: '10.245.3.0/24',
  [D]: '10.245.4.0/24',
};
const EXCLUDE_LB = 'node.kubernetes.io/exclude-from-external-load-balancers';
const L = 'loadbalancer.openstack.org/';
/** The annotations operators use most: internal (the lab has no VIP port for a floating IP), method, monitor, limits. */
const SERVICE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'service.beta.kubernetes.io/openstack-internal-load-balancer': 'true',
  [`${L}lb-method`]: 'LEAST_CONNECTIONS',
  [`${L}enable-health-monitor`]: 'true',
  [`${L}health-monitor-delay`]: '7',
  [`${L}connection-limit`]: '100',
  [`${L}timeout-client-data`]: '60000',
};
const WAIT_MS = 150_000;
const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A side's project: the network, router and four servers, the same names and addresses on each side. */
export function parityEstate(stack: LabOpenStack, impl: OpenStackImpl): Promise<Estate> {
  return makeEstate(stack, `osparity-${impl}`, SUBNET, Object.keys(ADDRESSES), [], ADDRESSES);
}

export async function runOpenStackParity(impl: OpenStackImpl, ctx: ParityContext, estate: Estate): Promise<Side> {
  const started = Date.now();
  const core = ctx.admin.makeApiClient(CoreV1Api);
  const ccm = startSideCCM(impl, ctx, estate);
  const lbName = `kube_service_${PARITY_CLUSTER}_${ctx.namespace}_${SERVICE}`;
  const side: Side = {
    impl,
    ctx,
    core,
    estate,
    names: idNames(estate),
    ccm,
    out: new Map(),
    lbName,
    serviceUid: '',
    steps: [],
  };
  const step = async (name: string, fn: () => Promise<void>): Promise<void> => {
    await fn();
    side.steps.push(`${name} at ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  try {
    await step('nodes initialized', () => initializedNodes(side, [A, B, C]));
    await step('routes', () => routedPodCIDRs(side, [A, B, C]));
    await snapshotCheckpoint(side, 'init', [A, B, C]);
    await step('load balancer', () => createdService(side));
    await snapshotCheckpoint(side, 'lb', [A, B, C]);
    await step('node joined and excluded', () => joinedAndExcluded(side));
    await snapshotCheckpoint(side, 'members', [A, B, C, D]);
    await step('server deleted, server shut off', () => lifecycle(side));
    await snapshotCheckpoint(side, 'lifecycle', [A, B, C, D]);
    await step('service deleted', () => deletedService(side));
    await snapshotCheckpoint(side, 'deleted', [A, B, C, D]);
    return side;
  } catch (err) {
    throw new Error(`${impl}: ${String(err)}\nsteps: ${side.steps.join(', ')}\nCCM log tail:\n${ccm.tail()}`, {
      cause: err,
    });
  } finally {
    await ccm.stop();
    // PARITY_KEEP=1: each side's CCM log beside the test's temp files, for a look at a difference.
    if (process.env.PARITY_KEEP) copyFileSync(ccm.logPath, join(tmpdir(), `wasm-ccm-osparity-${impl}.log`));
    await core.deleteNamespacedService({ namespace: ctx.namespace, name: SERVICE }).catch(() => undefined);
    await deleteNodes(ctx.admin, Object.keys(ADDRESSES));
    await eventually('the Nodes gone', async () => {
      const left = (await core.listNode()).items.filter((n) => (n.metadata?.name ?? '') in ADDRESSES);
      return left.length === 0;
    });
    await clearEvents(core, ctx.namespace, [SERVICE], Object.keys(ADDRESSES));
  }
}

function alive(side: Side): void {
  if (!side.ccm.running()) throw new Error(`${side.impl} exited`);
}

/** Creates the Nodes as kubelets register them (tainted, no providerID) and waits until the CCM initialized them. */
async function initializedNodes(side: Side, names: readonly string[], labels: Record<string, string> = {}) {
  for (const name of names) await side.core.createNode({ body: kubeletNode(name, { labels }) });
  for (const name of names) {
    await eventually(
      `${side.impl}: ${name} initialized`,
      async () => {
        alive(side);
        const n = await side.core.readNode({ name });
        // The taint goes with the labels, the addresses in a status update after it: settled when both are there.
        const addressed = n.status?.addresses?.some((a) => a.type === 'InternalIP') ?? false;
        const synced = (await eventsOf(side.core, 'Node', name)).includes('Normal Synced');
        return !hasTaint(n, UNINITIALIZED_TAINT.key) && addressed && synced;
      },
      WAIT_MS,
      250,
    );
  }
}

/** Gives `names` their pod CIDRs and waits until `routed` have a route each on the router, NetworkUnavailable False. */
async function routedPodCIDRs(side: Side, names: readonly string[], routed = names): Promise<void> {
  for (const name of names) {
    await side.core.patchNode(
      { name, body: { spec: { podCIDR: POD_CIDRS[name], podCIDRs: [POD_CIDRS[name]] } } },
      MERGE_PATCH,
    );
  }
  await routesAre(side, routed);
}

async function routesAre(side: Side, names: readonly string[]): Promise<void> {
  const want = Object.fromEntries(names.map((n) => [POD_CIDRS[n], ADDRESSES[n]]));
  await eventually(
    `${side.impl}: routes of ${names.join(', ')}`,
    async () => {
      alive(side);
      const routes = await routerRoutes(side.estate.project.client, side.estate.network.routerId);
      if (JSON.stringify(sorted(routes)) !== JSON.stringify(sorted(want))) return false;
      for (const name of names) {
        const node = await side.core.readNode({ name });
        const cond = node.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
        if (cond?.status !== 'False') return false;
      }
      return true;
    },
    WAIT_MS,
    250,
  );
}

function sorted(record: Record<string, string>): Array<[string, string]> {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}

/** Creates the Service and waits for its ACTIVE load balancer with every node a member and the ensure's Event. */
async function createdService(side: Side): Promise<void> {
  const { ctx } = side;
  const made = await side.core.createNamespacedService({
    namespace: ctx.namespace,
    body: {
      metadata: { name: SERVICE, annotations: { ...SERVICE_ANNOTATIONS } },
      spec: {
        type: 'LoadBalancer',
        selector: { app: SERVICE },
        sessionAffinity: 'ClientIP',
        loadBalancerSourceRanges: ['10.0.0.0/8'],
        ports: [
          { name: 'http', port: 80, targetPort: 8080, nodePort: ctx.nodePorts[0], protocol: 'TCP' },
          { name: 'https', port: 443, targetPort: 8443, nodePort: ctx.nodePorts[1], protocol: 'TCP' },
        ],
      },
    },
  });
  side.serviceUid = made.metadata?.uid ?? '';
  const estateNames = side.names;
  side.names = { text: (s) => estateNames.text(s).replaceAll(side.serviceUid, '{service uid}') };
  await membersAre(side, [A, B, C]);
  await serviceEvent(side, 'Normal EnsuredLoadBalancer');
  await eventually(`${side.impl}: ingress of ${SERVICE}`, async () => {
    const svc = await side.core.readNamespacedService({ namespace: ctx.namespace, name: SERVICE });
    return (svc.status?.loadBalancer?.ingress?.length ?? 0) > 0;
  });
}

/** Waits until every pool of the Service's load balancer has exactly `names` as members, and it is ACTIVE. */
async function membersAre(side: Side, names: readonly string[]): Promise<void> {
  const want = [...names].sort().join(',');
  await eventually(
    `${side.impl}: members ${want}`,
    async () => {
      alive(side);
      const pools = await activeMembers(side.estate.project.client, side.lbName);
      if (pools === undefined) return false;
      const lists = Object.values(pools);
      return lists.length === 2 && lists.every((m) => m.join(',') === want);
    },
    WAIT_MS,
    500,
  );
}

async function serviceEvent(side: Side, event: string, count = 1): Promise<void> {
  await eventually(
    `${side.impl}: ${count} "${event}" Event of ${SERVICE}`,
    async () => {
      const events = await eventsOf(side.core, 'Service', SERVICE, side.ctx.namespace, true);
      return events.filter((e) => e === event).length >= count;
    },
    WAIT_MS,
    250,
  );
}

/**
 * A fourth Node joins excluded from load balancers (so its initialization does not race the member sync), is
 * initialized and routed, then the label goes: the members follow; then the second Node is excluded.
 */
async function joinedAndExcluded(side: Side): Promise<void> {
  await initializedNodes(side, [D], { [EXCLUDE_LB]: 'true' });
  await routedPodCIDRs(side, [D], [A, B, C, D]);
  await side.core.patchNode({ name: D, body: { metadata: { labels: { [EXCLUDE_LB]: null } } } }, MERGE_PATCH);
  await membersAre(side, [A, B, C, D]);
  await serviceEvent(side, 'Normal UpdatedLoadBalancer', 1);
  await side.core.patchNode({ name: B, body: { metadata: { labels: { [EXCLUDE_LB]: 'true' } } } }, MERGE_PATCH);
  await membersAre(side, [A, C, D]);
  await serviceEvent(side, 'Normal UpdatedLoadBalancer', 2);
}

/** The third server deleted: its Node goes, with its route and member; the fourth shut off: the shutdown taint. */
async function lifecycle(side: Side): Promise<void> {
  const { client } = side.estate.project;
  await deleteServer(client, side.estate.servers.get(C)!.id);
  await eventually(
    `${side.impl}: ${C} deleted`,
    async () => {
      alive(side);
      return !(await side.core.listNode()).items.some((n) => n.metadata?.name === C);
    },
    WAIT_MS,
    250,
  );
  await routesAre(side, [A, B, D]);
  await membersAre(side, [A, D]);
  await serviceEvent(side, 'Normal UpdatedLoadBalancer', 3);
  await stopServer(client, side.estate.servers.get(D)!.id);
  await eventually(
    `${side.impl}: ${D} tainted shut down`,
    async () => {
      alive(side);
      return hasTaint(await side.core.readNode({ name: D }), SHUTDOWN_TAINT_KEY);
    },
    WAIT_MS,
    250,
  );
}

/** Deletes the Service and waits until it is gone (the CCM released its finalizer) and its deletion's Event. */
async function deletedService(side: Side): Promise<void> {
  await side.core.deleteNamespacedService({ namespace: side.ctx.namespace, name: SERVICE });
  await eventually(
    `${side.impl}: ${SERVICE} deleted`,
    async () => {
      alive(side);
      const left = await side.core.listNamespacedService({ namespace: side.ctx.namespace });
      return left.items.length === 0;
    },
    WAIT_MS,
    250,
  );
  await serviceEvent(side, 'Normal DeletedLoadBalancer');
}
