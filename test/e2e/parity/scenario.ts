// One scenario for the differential parity test, run against a CCM implementation on a fresh control plane and a
// fresh, identically seeded devcloud; the result is a normalised, flattened snapshot (path -> JSON value) of what
// the CCM did to Nodes, Services, Events and the cloud, so two runs compare key by key.
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Node, type V1Service } from '@kubernetes/client-node';
import { type Devcloud, type LoadBalancer, startDevcloud } from '../../../devcloud/src/index.ts';
import { CCMProcess } from '../../support/ccm-process.ts';
import { ControlPlane } from '../../support/controlplane/controlplane.ts';
import { eventually } from '../../support/eventually.ts';
import { adminKubeConfig } from '../../support/kube.ts';
import { PeerCCM } from '../../support/peer-ccm.ts';
import { devcloudPluginArgs } from '../ccm/support/ccm-env.ts';

export type Impl = 'upstream' | 'wasm-ccm';
export type Snapshot = Map<string, string>;

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
const PROVIDED_IP = 'alpha.kubernetes.io/provided-node-ip';
const EXCLUDE = 'node.kubernetes.io/exclude-from-external-load-balancers';
const DESCRIPTION = 'service.beta.kubernetes.io/devcloud-description';
const HEALTH_CHECK = 'service.beta.kubernetes.io/devcloud-health-check-port';
const CLUSTER_CIDR = '10.244.0.0/16';
const WAIT_MS = 45_000;
/** Event sources that are the apiserver's own controllers (ipallocator-repair-controller, portallocator-...). */
const APISERVER_COMPONENTS = /(^kube-apiserver$|repair-controller$)/;
const SCENARIO_OBJECTS = /^(Node\/node-[a-f]|Service\/(web|keep|local|bad))$/;

/** Flags both implementations get (each adds what its provider wiring needs). */
export const COMMON_FLAGS = [
  '--leader-elect=false',
  '--controllers=*',
  '--cluster-name=kubernetes',
  `--cluster-cidr=${CLUSTER_CIDR}`,
  '--configure-cloud-routes=true',
  '--node-monitor-period=1s',
  '--route-reconciliation-period=2s',
];

function condition(ready: boolean) {
  const at = new Date();
  return {
    type: 'Ready',
    status: ready ? 'True' : 'False',
    reason: ready ? 'KubeletReady' : 'KubeletNotReady',
    message: ready ? 'kubelet is posting ready status' : 'parity: not ready',
    lastHeartbeatTime: at,
    lastTransitionTime: at,
  };
}

interface NodeSeed {
  name: string;
  ready: boolean;
  /** Already initialized by a CCM earlier: providerID set, no uninitialized taint. */
  initialized?: boolean;
  podCIDR?: string;
  annotations?: Record<string, string>;
}

function nodeBody(seed: NodeSeed, cloud: Devcloud, id: string): V1Node {
  const inst = cloud.inventory().instances.find((i) => i.id === id);
  return {
    metadata: {
      name: seed.name,
      labels: { 'kubernetes.io/hostname': seed.name, 'kubernetes.io/os': 'linux' },
      ...(seed.annotations ? { annotations: seed.annotations } : {}),
    },
    spec: {
      ...(seed.initialized
        ? { providerID: `devcloud://${id}` }
        : { taints: [{ key: UNINITIALIZED, value: 'true', effect: 'NoSchedule' }] }),
      ...(seed.podCIDR ? { podCIDR: seed.podCIDR, podCIDRs: [seed.podCIDR] } : {}),
    },
    status: {
      addresses:
        seed.initialized && inst ? inst.addresses.map((a) => ({ ...a })) : [{ type: 'Hostname', address: seed.name }],
      conditions: [condition(seed.ready)],
    },
  };
}

function hasTaint(node: V1Node | undefined, key: string): boolean {
  return (node?.spec?.taints ?? []).some((t) => t.key === key);
}

function netUnavailable(node: V1Node | undefined): string | undefined {
  return node?.status?.conditions?.find((c) => c.type === 'NetworkUnavailable')?.status;
}

/** Runs the scenario against `impl`; resolves with the snapshot and a log of the steps (for failure messages). */
export async function runScenario(impl: Impl, log: (msg: string) => void): Promise<Snapshot> {
  const cp = await ControlPlane.start();
  const cloud = await startDevcloud({ token: 'parity-token' });
  const admin = adminKubeConfig(cp.info);
  const core = admin.makeApiClient(CoreV1Api);
  let ccm: { stop(): Promise<number | null> } | undefined;
  const started = Date.now();
  const step = (msg: string): void => log(`[${impl} ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
  try {
    // The cloud: ids chosen so providerIDs are the same in both runs.
    cloud.addInstance({
      id: 'i-parity-a',
      name: 'node-a',
      type: 'dc.large',
      zone: 'dc-east-1a',
      labels: { pool: 'web', 'bad key': 'x' },
    });
    cloud.addInstance({ id: 'i-parity-b', name: 'node-b', zone: 'dc-east-1b' });
    cloud.addInstance({
      id: 'i-parity-c',
      name: 'node-c',
      zone: 'dc-west-1a',
      addresses: [
        { type: 'InternalIP', address: '10.0.9.30' },
        { type: 'InternalIP', address: '10.0.9.3' },
        { type: 'ExternalIP', address: '203.0.113.3' },
        { type: 'Hostname', address: 'node-c' },
      ],
    });
    cloud.addInstance({ id: 'i-parity-d', name: 'node-d' });
    cloud.addInstance({ id: 'i-parity-e', name: 'node-e', zone: 'dc-east-1c' });
    cloud.addInstance({ id: 'i-parity-f', name: 'node-f', labels: { pool: 'batch' } });
    cloud.terminateInstance('i-parity-d');
    cloud.stopInstance('i-parity-e');

    const seeds: [NodeSeed, string][] = [
      [{ name: 'node-a', ready: true, podCIDR: '10.244.1.0/24' }, 'i-parity-a'],
      [{ name: 'node-b', ready: true, podCIDR: '10.244.2.0/24' }, 'i-parity-b'],
      [
        { name: 'node-c', ready: true, podCIDR: '10.244.3.0/24', annotations: { [PROVIDED_IP]: '10.0.9.3' } },
        'i-parity-c',
      ],
      [{ name: 'node-d', ready: false, initialized: true }, 'i-parity-d'],
      [{ name: 'node-e', ready: false, initialized: true, podCIDR: '10.244.5.0/24' }, 'i-parity-e'],
    ];
    for (const [seed, id] of seeds) await core.createNode({ body: nodeBody(seed, cloud, id) });

    if (impl === 'upstream') {
      ccm = new PeerCCM({ info: cp.info, cloud, args: COMMON_FLAGS });
    } else {
      const proc = new CCMProcess({
        info: cp.info,
        token: cp.info.adminToken,
        args: [...devcloudPluginArgs(cp.info.dir, cloud, 'parity'), ...COMMON_FLAGS],
      });
      ccm = proc;
      await proc.ready(60_000);
    }
    step('CCM started');

    const nodes = async (): Promise<Map<string, V1Node>> =>
      new Map((await core.listNode()).items.map((n) => [n.metadata!.name!, n]));
    await eventually(
      'nodes initialized, node-d deleted, node-e shut down, routes for every podCIDR',
      async () => {
        const all = await nodes();
        return (
          ['node-a', 'node-b', 'node-c'].every((n) => all.has(n) && !hasTaint(all.get(n), UNINITIALIZED)) &&
          !all.has('node-d') &&
          hasTaint(all.get('node-e'), SHUTDOWN) &&
          ['node-a', 'node-b', 'node-c', 'node-e'].every((n) => netUnavailable(all.get(n)) === 'False')
        );
      },
      WAIT_MS,
      200,
    );
    step('nodes done');

    const lb = (name: string) => cloud.inventory().loadBalancers.find((l) => l.name === name);
    // The web LB as it is after each step (it is gone by the end), compared like the final state.
    const checkpoints: Snapshot = new Map();
    const checkpoint = (label: string): void => {
      const web = lb('kubernetes-default-web');
      if (web) flattenLB(checkpoints, `checkpoint/${label}/lb/${web.name}`, web, new Map());
    };
    const service = (name: string, port: number, nodePort: number): V1Service => ({
      metadata: { name, namespace: 'default', annotations: { [HEALTH_CHECK]: '10256' } },
      spec: {
        type: 'LoadBalancer',
        selector: { app: name },
        ports: [{ name: 'http', port, targetPort: port, nodePort }],
      },
    });
    const ingressOf = async (name: string) =>
      (await core.readNamespacedServiceStatus({ name, namespace: 'default' })).status?.loadBalancer?.ingress?.[0]?.ip;

    await core.createNamespacedService({ namespace: 'default', body: service('web', 80, 30080) });
    await eventually('web has an external IP', () => ingressOf('web'), WAIT_MS, 200);
    checkpoint('ensured');
    step('web ensured');

    await core.patchNamespacedService(
      { name: 'web', namespace: 'default', body: { metadata: { annotations: { [DESCRIPTION]: 'parity web' } } } },
      mergePatch(),
    );
    await eventually(
      'web LB description updated',
      () => lb('kubernetes-default-web')?.description === 'parity web',
      WAIT_MS,
      200,
    );
    checkpoint('annotated');
    step('web annotation applied');

    // Node-set change: a new node joins (and is initialized), then node-b is excluded from load balancers.
    await core.createNode({
      body: nodeBody({ name: 'node-f', ready: true, podCIDR: '10.244.6.0/24' }, cloud, 'i-parity-f'),
    });
    await eventually(
      'node-f initialized and a backend of web',
      async () => {
        const f = (await nodes()).get('node-f');
        return (
          !!f &&
          !hasTaint(f, UNINITIALIZED) &&
          (lb('kubernetes-default-web')?.backendInstanceIds ?? []).includes('i-parity-f')
        );
      },
      WAIT_MS,
      200,
    );
    checkpoint('node-f-joined');
    await core.patchNode({ name: 'node-b', body: { metadata: { labels: { [EXCLUDE]: 'true' } } } }, mergePatch());
    await eventually(
      'node-b left web',
      () => !(lb('kubernetes-default-web')?.backendInstanceIds ?? ['i-parity-b']).includes('i-parity-b'),
      WAIT_MS,
      200,
    );
    checkpoint('node-b-excluded');
    step('node set changes applied');

    // The cloud throttles keep's first create (429, Retry-After 1 s): retried after that delay.
    cloud.setKnobs({ failNext: [{ kind: 'createLoadBalancer', count: 1, status: 429 }], retryAfterSeconds: 1 });
    await core.createNamespacedService({ namespace: 'default', body: service('keep', 443, 30443) });
    await eventually('keep has an external IP', () => ingressOf('keep'), WAIT_MS, 200);
    // Source ranges (trimmed by both providers) and externalTrafficPolicy Local, whose health-check node port is the
    // Service's own (given here: an allocated one would differ between the two control planes).
    const local = service('local', 8443, 30444);
    local.metadata!.annotations = {};
    local.spec = {
      ...local.spec,
      loadBalancerSourceRanges: ['10.0.0.0/8', '192.168.0.0/16 '],
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 32100,
    };
    await core.createNamespacedService({ namespace: 'default', body: local });
    await eventually('local has an external IP', () => ingressOf('local'), WAIT_MS, 200);
    // An annotation the provider does not know: refused (Invalid), no load balancer, a Warning event, no status.
    const bad = service('bad', 9090, 30909);
    bad.metadata!.annotations = { 'service.beta.kubernetes.io/devcloud-bogus': 'x' };
    await core.createNamespacedService({ namespace: 'default', body: bad });
    await eventually(
      'bad refused with a Warning event',
      async () =>
        (await core.listNamespacedEvent({ namespace: 'default' })).items.some(
          (e) => e.involvedObject.name === 'bad' && e.type === 'Warning' && e.reason === 'SyncLoadBalancerFailed',
        ),
      WAIT_MS,
      200,
    );
    await core.deleteNamespacedService({ name: 'web', namespace: 'default' });
    await eventually(
      'web and its LB gone',
      async () => {
        const list = await core.listNamespacedService({ namespace: 'default' });
        return !list.items.some((s) => s.metadata?.name === 'web') && lb('kubernetes-default-web') === undefined;
      },
      WAIT_MS,
      200,
    );
    await eventually(
      'node-f has its route',
      async () => netUnavailable((await nodes()).get('node-f')) === 'False',
      WAIT_MS,
      200,
    );
    step('services done; settling');
    await new Promise((r) => setTimeout(r, 4000)); // two route periods, a few monitor periods: let trailing work land
    const out = await snapshot(core, cloud);
    for (const [k, v] of checkpoints) out.set(k, v);
    return out;
  } finally {
    await ccm?.stop().catch(() => undefined);
    await cloud.stop().catch(() => undefined);
    await cp.stop().catch(() => undefined);
  }
}

// client-node 2.x sends JSON Patch unless told otherwise.
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
function mergePatch() {
  return MERGE;
}

/** RFC 6901-style escaping so a label key with '/' stays one path segment. */
function seg(s: string): string {
  return s.replaceAll('~', '~0').replaceAll('/', '~1');
}

function flatten(out: Snapshot, prefix: string, value: unknown): void {
  if (value === null || typeof value !== 'object') {
    out.set(prefix, JSON.stringify(value));
    return;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  if (entries.length === 0) out.set(prefix, Array.isArray(value) ? '[]' : '{}');
  for (const [k, v] of entries) if (v !== undefined) flatten(out, `${prefix}/${seg(k)}`, v);
}

/** A devcloud LB without what legitimately differs (times, revision); the Service UID tag becomes the Service's name. */
function flattenLB(out: Snapshot, prefix: string, lb: LoadBalancer, svcUIDs: Map<string, string>): void {
  const tags = { ...lb.tags };
  const uid = tags['k8s-service-uid'];
  if (uid) tags['k8s-service-uid'] = `<uid of ${svcUIDs.get(uid) ?? `service ${tags['k8s-service'] ?? '?'}`}>`;
  flatten(out, prefix, {
    vip: lb.vip,
    listeners: lb.listeners,
    backendInstanceIds: lb.backendInstanceIds,
    sourceRanges: lb.sourceRanges,
    healthCheckNodePort: lb.healthCheckNodePort,
    tags,
    description: lb.description,
  });
}

async function snapshot(core: CoreV1Api, cloud: Devcloud): Promise<Snapshot> {
  const out: Snapshot = new Map();
  const nodes = (await core.listNode()).items;
  const uidToNode = new Map(nodes.map((n) => [n.metadata!.uid!, n.metadata!.name!]));
  for (const n of nodes) {
    const name = n.metadata!.name!;
    const net = n.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
    flatten(out, `node/${name}`, {
      labels: n.metadata?.labels ?? {},
      annotations: n.metadata?.annotations ?? {},
      providerID: n.spec?.providerID ?? null,
      taints: (n.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort(),
      addresses: n.status?.addresses ?? [],
      NetworkUnavailable: net ? { status: net.status, reason: net.reason, message: net.message } : null,
    });
  }
  const services = (await core.listNamespacedService({ namespace: 'default' })).items.filter(
    (s) => s.spec?.type === 'LoadBalancer',
  );
  const svcUIDs = new Map(services.map((s) => [s.metadata!.uid!, s.metadata!.name!]));
  for (const s of services) {
    flatten(out, `service/${s.metadata!.name!}`, {
      finalizers: s.metadata?.finalizers ?? [],
      annotations: s.metadata?.annotations ?? {},
      loadBalancer: s.status?.loadBalancer ?? {},
    });
  }
  // Events as a set of (type, reason, kind, name); counts differ with timing (retries, aggregation) and are not compared.
  const events = (await core.listEventForAllNamespaces()).items;
  for (const e of events) {
    const o = e.involvedObject;
    // Only the scenario's objects: the apiserver's own controllers (e.g. the ClusterIP repair loop warning about
    // Service "kubernetes") emit events at their own pace and are no part of the comparison.
    if (!SCENARIO_OBJECTS.test(`${o.kind}/${o.name}`)) continue;
    // Nor are their events about the scenario's objects: the repair loop, racing the creation of a Service, may
    // warn ClusterIPNotAllocated about it in one run and not the other.
    if (APISERVER_COMPONENTS.test(e.reportingComponent || e.source?.component || '')) continue;
    out.set(`event/${e.type}/${e.reason}/${o.kind}/${o.name}`, 'true');
  }
  const inv = cloud.inventory();
  for (const lb of inv.loadBalancers) {
    const tags = { ...lb.tags };
    if (tags['k8s-service-uid'])
      tags['k8s-service-uid'] = `<uid of ${svcUIDs.get(tags['k8s-service-uid']) ?? 'a deleted service'}>`;
    flatten(out, `cloud/lb/${lb.name}`, {
      vip: lb.vip,
      listeners: lb.listeners,
      backendInstanceIds: lb.backendInstanceIds,
      sourceRanges: lb.sourceRanges,
      healthCheckNodePort: lb.healthCheckNodePort,
      tags,
      description: lb.description,
    });
  }
  for (const r of inv.routes) {
    // Route names carry the nameHint (the node's UID): map it back to the node's name.
    let name = r.name;
    for (const [uid, node] of uidToNode) name = name.replace(uid, `<uid of ${node}>`);
    flatten(out, `cloud/route/${name}`, {
      destinationCidr: r.destinationCidr,
      targetInstanceId: r.targetInstanceId,
      blackhole: r.blackhole,
      tags: r.tags,
      description: r.description,
    });
  }
  for (const i of inv.instances) out.set(`cloud/instance/${i.id}/state`, JSON.stringify(i.state));
  return out;
}
