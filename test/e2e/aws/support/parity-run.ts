// One side of the AWS parity test: a fresh moto seeded with the same estate, Nodes named after its instances'
// private DNS names or instance IDs, one of them without the cluster tag (parity-estate.ts), one CCM (upstream's
// aws-cloud-controller-manager, through the correcting proxy of moto-corrections.ts, or wasm-ccm with plugins/aws)
// running only the cloud-node and service controllers, and three LoadBalancer Services asking for NLBs (SERVICES).
// The result is a
// flattened, normalized snapshot (Nodes, the Services, Events reasons, moto's NLBs and security group rules) taken
// after settle and after deletion.
import type { CoreV1Api, KubeConfig, V1Node } from '@kubernetes/client-node';
import { CoreV1Api as Core } from '@kubernetes/client-node';
import {
  type AwsEnv,
  awsPluginArgs,
  startAwsEnv,
  AwsPeerCCM,
  call,
  elbInventory,
  privateSubnet,
} from '../../../../lab/peers/index.ts';
import { CCMProcess, deleteNodes, hasTaint, kubeletNode, UNINITIALIZED_TAINT } from '../../../../lab/ccm/index.ts';
import type { ControlPlaneInfo } from '../../../../lab/controlplane/index.ts';
import { eventually } from '../../../../lab/process/index.ts';
import { flatten, seg, type Snapshot } from '../../../support/parity/flatten.ts';
import { ccmEventReasons, nodeEventReasons } from '../../../support/parity/events.ts';
import { discoverySubnets, parityNodeNames, TARGET_COUNT, untaggedInstance } from './parity-estate.ts';
import { securityGroupRules } from './sg-state.ts';
import { startCorrectingProxy } from './moto-corrections.ts';
import { dnsShape, type LoadBalancerState, loadBalancerState, type Normalizer } from './elb-state.ts';
import { ccmFailure } from './ccm-failure.ts';

export type AwsImpl = 'upstream' | 'wasm-ccm';

export const PARITY_CLUSTER = 'aws-parity';
const ANNOTATION = 'service.beta.kubernetes.io/aws-load-balancer-';
/** An IAM server certificate's ARN: moto checks ACM certificates exist, not IAM ones (neither CCM uploads one). */
const CERTIFICATE = 'arn:aws:iam::123456789012:server-certificate/parity';
/**
 * An internet-facing NLB with the defaults; an internal one with an HTTP health check and tags of its own; and an
 * externalTrafficPolicy Local one (kube-proxy's health check) with a TLS listener on 443 and cross-zone on.
 */
const SERVICES: ReadonlyArray<{ name: string; annotations: Record<string, string>; local?: boolean }> = [
  { name: 'web', annotations: { [`${ANNOTATION}type`]: 'nlb' } },
  {
    name: 'api',
    annotations: {
      [`${ANNOTATION}type`]: 'nlb',
      [`${ANNOTATION}internal`]: 'true',
      [`${ANNOTATION}healthcheck-protocol`]: 'HTTP',
      [`${ANNOTATION}healthcheck-path`]: '/ready',
      [`${ANNOTATION}additional-resource-tags`]: 'team=api,tier=backend',
    },
  },
  {
    name: 'local',
    local: true,
    annotations: {
      [`${ANNOTATION}type`]: 'nlb',
      [`${ANNOTATION}ssl-cert`]: CERTIFICATE,
      [`${ANNOTATION}ssl-ports`]: '443',
      [`${ANNOTATION}ssl-negotiation-policy`]: 'ELBSecurityPolicy-TLS13-1-2-2021-06',
      [`${ANNOTATION}cross-zone-load-balancing-enabled`]: 'true',
    },
  },
];

export interface ParityContext {
  info: ControlPlaneInfo;
  admin: KubeConfig;
  /** The wasm-ccm ServiceAccount's token (manifests/rbac.yaml). */
  token: string;
  namespace: string;
  /**
   * Two NodePorts per Service and the Local Service's health check NodePort last, the same in both runs: upstream's
   * target group names hash them.
   */
  nodePorts: number[];
}

export interface ParityResult {
  snapshot: Snapshot;
  /** moto's ELBv2 inventory after the Service's deletion: must be empty. */
  orphans: string[];
  /** Upstream's CreateLoadBalancer requests that got AWS's default scheme (support/moto-corrections.ts). */
  schemeCorrections: number;
}

export interface Running {
  stop(): Promise<number | null>;
  schemeCorrections(): number;
  running(): boolean;
  tail(): string;
}

/** One run's parts, for the steps after the Nodes. */
interface Run {
  impl: AwsImpl;
  ctx: ParityContext;
  core: CoreV1Api;
  env: AwsEnv;
  ccm: Running;
  out: Snapshot;
  /** The NLB names of this run's Services (the shared cluster's other LoadBalancer Services get NLBs too). */
  lbNames: string[];
}

export async function runAwsParity(impl: AwsImpl, ctx: ParityContext): Promise<ParityResult> {
  const core = ctx.admin.makeApiClient(Core);
  const env = await startAwsEnv({ cluster: PARITY_CLUSTER, zones: ['us-east-1a', 'us-east-1b'], instancesPerZone: 2 });
  let nodeNames: string[] = [];
  let ccm: Running | undefined;
  try {
    await nameInstances(env);
    await untaggedInstance(env, PARITY_CLUSTER);
    nodeNames = parityNodeNames(env);
    // A third zone with only a private subnet: an internet-facing NLB must leave it out. Normalized as {subnet-2}.
    const hidden = { vpcId: env.seeded.vpcId, cluster: PARITY_CLUSTER, cidr: '10.0.9.0/24', zone: 'us-east-1c' };
    env.seeded.subnetIds.push(await privateSubnet(env.query, hidden));
    await discoverySubnets(env);
    for (const name of nodeNames) await core.createNode({ body: kubeletNode(name) });
    ccm = await startCCM(impl, ctx, env);
    const out: Snapshot = new Map();
    const norm = normalizer(env);
    for (const name of nodeNames) {
      const node = await eventually(
        `${impl}: ${name} initialized`,
        async () => {
          alive(ccm as Running, impl);
          const n = await core.readNode({ name });
          // The taint goes with the labels, the addresses in a status update after it: settled when both are there.
          const addressed = n.status?.addresses?.some((a) => a.type === 'InternalIP') ?? false;
          return hasTaint(n, UNINITIALIZED_TAINT.key) || !addressed ? undefined : n;
        },
        45_000,
      );
      flatten(out, `node/${seg(norm.text(name))}`, nodeView(node, norm));
    }
    const run: Run = { impl, ctx, core, env, ccm, out, lbNames: [] };
    for (const [i, svc] of SERVICES.entries()) await settledService(run, svc.name, i);
    flatten(out, 'security-groups', await securityGroupRules(env.query, env.seeded.vpcId, portNormalizer(run)));
    for (const name of nodeNames) {
      flatten(out, `events/settled/node/${seg(norm.text(name))}`, await nodeEventReasons(core, name));
    }
    const orphans = await deletedServices(run);
    return { snapshot: out, orphans, schemeCorrections: ccm.schemeCorrections() };
  } catch (err) {
    throw ccmFailure(impl, err, ccm?.tail());
  } finally {
    await ccm?.stop();
    await deleteNodes(ctx.admin, nodeNames);
    await clearEvents(core, ctx.namespace, nodeNames);
    await env.close();
  }
}

/** Tags every instance with its stable name and the cluster (upstream sees only instances tagged for its cluster). */
export async function nameInstances(env: AwsEnv): Promise<void> {
  for (const [i, inst] of env.seeded.instances.entries()) {
    await call(env.query, 'ec2', {
      Action: 'CreateTags',
      'ResourceId.1': inst.id,
      'Tag.1.Key': 'Name',
      'Tag.1.Value': `node-${i}`,
      'Tag.2.Key': `kubernetes.io/cluster/${PARITY_CLUSTER}`,
      'Tag.2.Value': 'owned',
    });
  }
}

/** upstream reaches moto through the correcting proxy (support/moto-corrections.ts), stopped with it. */
export async function startCCM(impl: AwsImpl, ctx: ParityContext, env: AwsEnv): Promise<Running> {
  if (impl === 'upstream') {
    const proxy = await startCorrectingProxy(env.moto.endpoint, env.moto);
    const peer = new AwsPeerCCM({
      info: ctx.info,
      moto: env.moto,
      endpoint: proxy.endpoint,
      vpcID: env.seeded.vpcId,
      subnetID: env.seeded.subnetIds[0]!,
      clusterID: PARITY_CLUSTER,
      args: [
        '--controllers=cloud-node-controller,service-lb-controller',
        '--leader-elect=false',
        '--configure-cloud-routes=false',
        `--cluster-name=${PARITY_CLUSTER}`,
      ],
    });
    return {
      stop: async () => {
        const code = await peer.stop();
        await proxy.close();
        return code;
      },
      running: () => peer.process.running,
      tail: () => peer.process.tail(),
      schemeCorrections: proxy.schemeCorrections,
    };
  }
  const ccm = new CCMProcess({
    info: ctx.info,
    token: ctx.token,
    args: [
      ...awsPluginArgs(env),
      `--cluster-name=${PARITY_CLUSTER}`,
      '--controllers=cloud-node,service',
      '--leader-elect=false',
    ],
  });
  return {
    stop: () => ccm.stop(),
    running: () => ccm.process.running,
    tail: () => ccm.process.tail(),
    schemeCorrections: () => 0,
  };
}

function alive(ccm: Running, impl: AwsImpl): void {
  if (!ccm.running()) throw new Error(`${impl} exited`);
}

/** Instance IDs, VPC and subnet IDs by stable names; the Service's NodePorts by their Service ports. */
export function normalizer(env: AwsEnv, nodePorts = new Map<string, string>(), uid = ''): Normalizer {
  const ids: Array<[string, string]> = [
    ...env.seeded.instances.map((inst, i): [string, string] => [inst.id, `{node-${i}}`]),
    [env.seeded.vpcId, '{vpc}'],
    ...env.seeded.subnetIds.map((s, i): [string, string] => [s, `{subnet-${i}}`]),
  ];
  if (uid !== '') ids.push([uid.replaceAll('-', '').slice(0, 31), '{uid}'], [uid, '{uid}']);
  return {
    text: (s) => ids.reduce((acc, [id, name]) => acc.replaceAll(id, name), s),
    port: (p) => (nodePorts.has(p) ? `nodePort:${nodePorts.get(p)}` : p),
  };
}

function nodeView(node: V1Node, norm: Normalizer): object {
  return {
    providerID: norm.text(node.spec?.providerID ?? ''),
    // kubernetes.io/hostname is the node name, an instance ID for a resource-based hostname.
    labels: Object.fromEntries(Object.entries(node.metadata?.labels ?? {}).map(([k, v]) => [k, norm.text(v)])),
    addresses: (node.status?.addresses ?? []).map((a) => ({ type: a.type, address: a.address })),
    taints: (node.spec?.taints ?? []).map((t) => ({ key: t.key, effect: t.effect, value: t.value })),
  };
}

/**
 * The NodePorts of every Service, named `<service>:<port>`, and the NLB names as `{nlb:<service>}`, for rules that
 * mix them (security groups, whose rule descriptions name the NLB).
 */
function portNormalizer({ ctx, env, lbNames }: Run): Normalizer {
  const names = new Map<string, string>();
  SERVICES.forEach((svc, i) => {
    names.set(String(ctx.nodePorts[2 * i]), `${svc.name}:80`);
    names.set(String(ctx.nodePorts[2 * i + 1]), `${svc.name}:443`);
  });
  names.set(String(ctx.nodePorts[2 * SERVICES.length]), 'local:health-check');
  const base = normalizer(env, names);
  const text = (s: string) =>
    lbNames.reduce((acc, lb, i) => acc.replaceAll(lb, `{nlb:${SERVICES[i]!.name}}`), base.text(s));
  return { ...base, text };
}

async function createService(core: CoreV1Api, ctx: ParityContext, name: string, index: number): Promise<void> {
  const [http, https] = ctx.nodePorts.slice(2 * index, 2 * index + 2);
  const local = SERVICES[index]!.local === true;
  await core.createNamespacedService({
    namespace: ctx.namespace,
    body: {
      metadata: { name, annotations: SERVICES[index]!.annotations },
      spec: {
        type: 'LoadBalancer',
        selector: { app: name },
        ...(local ? { externalTrafficPolicy: 'Local', healthCheckNodePort: ctx.nodePorts[2 * SERVICES.length] } : {}),
        ports: [
          { name: 'http', port: 80, targetPort: 8080, nodePort: http, protocol: 'TCP' },
          { name: 'https', port: 443, targetPort: 8443, nodePort: https, protocol: 'TCP' },
        ],
      },
    },
  });
}

/** Waits for the NLB with every Node registered in each target group and the Service's ingress, then snapshots. */
async function settledService(run: Run, name: string, index: number): Promise<void> {
  const { impl, ctx, core, env, ccm, out } = run;
  await createService(core, ctx, name, index);
  const created = await core.readNamespacedService({ namespace: ctx.namespace, name });
  const uid = created.metadata?.uid as string;
  const nodePorts = new Map((created.spec?.ports ?? []).map((p) => [String(p.nodePort), String(p.port)]));
  const norm = normalizer(env, nodePorts, uid);
  const lbName = `a${uid.replaceAll('-', '')}`.slice(0, 32);
  run.lbNames.push(lbName);
  const { svc, lb } = await eventually(
    `${impl}: NLB of ${name} settled`,
    async () => {
      alive(ccm, impl);
      const svc = await core.readNamespacedService({ namespace: ctx.namespace, name });
      const lb = await loadBalancerState(env.query, lbName, norm);
      const reasons = await serviceEventReasons(core, ctx.namespace, name);
      const done =
        svc.status?.loadBalancer?.ingress?.[0]?.hostname !== undefined &&
        lb !== undefined &&
        lb.targetGroups.length === 2 &&
        lb.targetGroups.every((tg) => tg.targets.length === TARGET_COUNT) &&
        reasons.includes('EnsuredLoadBalancer');
      return done ? { svc, lb } : undefined;
    },
    45_000,
    250,
  );
  const ingress = svc.status?.loadBalancer?.ingress ?? [];
  flatten(out, `service/${name}/finalizers`, svc.metadata?.finalizers ?? []);
  const hostnames = ingress.map((i) => dnsShape(norm, i.hostname ?? '(no hostname)'));
  flatten(out, `service/${name}/ingress-hostnames`, hostnames);
  flatten(
    out,
    `service/${name}/ingress-ips`,
    ingress.flatMap((i) => (i.ip ? [i.ip] : [])),
  );
  const isNlbDns = hostnames.length === 1 && hostnames[0] === lb.dnsName;
  out.set(`service/${name}/ingress-is-nlb-dns`, JSON.stringify(isNlbDns));
  flattenLoadBalancer(out, `nlb/${name}`, lb);
  flatten(out, `events/settled/service/${name}`, await serviceEventReasons(core, ctx.namespace, name));
}

/** Target groups and listeners keyed by their Service port, so the flattened keys name what differs. */
function flattenLoadBalancer(out: Snapshot, prefix: string, lb: LoadBalancerState): void {
  const { listeners, targetGroups, ...rest } = lb;
  flatten(out, prefix, rest);
  for (const l of listeners) flatten(out, `${prefix}/listener/${l.protocol}:${l.port}`, l);
  for (const tg of targetGroups) flatten(out, `${prefix}/target-group/${tg.protocol}:${tg.port}`, tg);
}

/** Deletes the Services, waits until they are gone (finalizers released), and returns what moto still holds. */
async function deletedServices(run: Run): Promise<string[]> {
  const { impl, ctx, core, env, ccm, out } = run;
  for (const { name } of SERVICES) await core.deleteNamespacedService({ namespace: ctx.namespace, name });
  await eventually(
    `${impl}: Services deleted`,
    async () => {
      alive(ccm, impl);
      const left = await core.listNamespacedService({ namespace: ctx.namespace });
      return left.items.length === 0;
    },
    45_000,
    250,
  );
  // Only this run's resources: wasm-ccm also serves the LoadBalancer Services other test files leave in the shared
  // cluster (as NLBs; upstream makes Classic ELBs of those, which this inventory does not list).
  const inventory = await elbInventory(env.query);
  const ours = (name: string): boolean => run.lbNames.some((lb) => name === lb || name.includes(`/${lb}/`));
  const tgPrefix = `k8s-${ctx.namespace.replace(/[^a-zA-Z0-9]/g, '').slice(0, 8)}-`;
  const orphans = [
    ...inventory.loadBalancers.filter(ours).map((n) => `load balancer ${n}`),
    ...inventory.targetGroups.filter((n) => n.startsWith(tgPrefix)).map((n) => `target group ${n}`),
    ...inventory.listeners.filter(ours).map((n) => `listener ${n}`),
  ];
  flatten(out, 'deleted/orphans', orphans);
  flatten(out, 'deleted/security-groups', await securityGroupRules(env.query, env.seeded.vpcId, portNormalizer(run)));
  for (const { name } of SERVICES) {
    flatten(out, `events/deleted/service/${name}`, await serviceEventReasons(core, ctx.namespace, name));
  }
  return orphans;
}

/** The reasons of the Service's Events, each once, sorted (counts and timing differ between runs). */
async function serviceEventReasons(core: CoreV1Api, namespace: string, name: string): Promise<string[]> {
  const list = await core.listNamespacedEvent({
    namespace,
    fieldSelector: `involvedObject.kind=Service,involvedObject.name=${name}`,
  });
  return ccmEventReasons(list.items);
}

/** Removes this run's Events so the other implementation's run starts from none (the Node names are the same). */
async function clearEvents(core: CoreV1Api, namespace: string, nodeNames: string[]): Promise<void> {
  await core.deleteCollectionNamespacedEvent({ namespace }).catch(() => undefined);
  for (const name of nodeNames) {
    const list = await core.listEventForAllNamespaces({
      fieldSelector: `involvedObject.kind=Node,involvedObject.name=${name}`,
    });
    for (const e of list.items) {
      await core
        .deleteNamespacedEvent({ namespace: e.metadata?.namespace ?? 'default', name: e.metadata?.name ?? '' })
        .catch(() => undefined);
    }
  }
}
