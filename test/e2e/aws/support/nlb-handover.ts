// The NLB handover: upstream's aws-cloud-controller-manager makes two NLB Services' load balancers and security
// group rules on a fresh moto with three Nodes, stops, and wasm-ccm takes the cluster over; a fourth Node joins (wasm-
// ccm's positive sign: it registers the node in every target group), then the Services are deleted. The steps return
// what moto held at each point, normalized, for parity.test.ts to compare.
import { CoreV1Api, type V1Service } from '@kubernetes/client-node';
import { type AwsEnv, elbInventory, startAwsEnv } from '../../../../lab/peers/index.ts';
import { deleteNodes, hasTaint, kubeletNode, UNINITIALIZED_TAINT } from '../../../../lab/ccm/index.ts';
import { eventually } from '../../../../lab/process/index.ts';
import { type LoadBalancerState, loadBalancerState, type Normalizer } from './elb-state.ts';
import {
  type AwsImpl,
  nameInstances,
  normalizer,
  PARITY_CLUSTER,
  type ParityContext,
  type Running,
  startCCM,
} from './parity-run.ts';
import { securityGroupRules } from './sg-state.ts';
import { ccmFailure } from './ccm-failure.ts';

const TYPE = 'service.beta.kubernetes.io/aws-load-balancer-type';
/** The Local Service's clients: two ranges, so its rules are per range (and its health checks need rules). */
export const SOURCE_RANGES = ['10.1.0.0/16', '192.168.0.0/24'];

/** What moto holds for the two Services at one point. */
export interface HandoverState {
  hostnames: Record<string, string>;
  lbs: Record<string, LoadBalancerState>;
  rules: Record<string, string[]>;
  /** Every ELBv2 load balancer name in moto. */
  lbNames: string[];
}

export interface HandoverResult {
  before: HandoverState;
  after: HandoverState;
  /** What is left after deletion: load balancers, target groups, listeners and the groups' rules. */
  left: { inventory: string[]; rules: Record<string, string[]> };
}

interface Step {
  env: AwsEnv;
  core: CoreV1Api;
  ctx: ParityContext;
  ccm: Running;
  impl: AwsImpl;
  /** Service name -> its NLB's name. */
  lbs: Map<string, string>;
}

export async function runNlbHandover(ctx: ParityContext): Promise<HandoverResult> {
  const core = ctx.admin.makeApiClient(CoreV1Api);
  const env = await startAwsEnv({ cluster: PARITY_CLUSTER, zones: ['us-east-1a', 'us-east-1b'], instancesPerZone: 2 });
  const names = env.seeded.instances.map((i) => i.privateDnsName);
  let ccm: Running | undefined;
  try {
    await nameInstances(env);
    ccm = await startCCM('upstream', ctx, env);
    const step: Step = { env, core, ctx, ccm, impl: 'upstream', lbs: new Map() };
    for (const name of names.slice(0, 3)) await joinNode(step, name);
    for (const svc of services(ctx)) {
      const made = await core.createNamespacedService({ namespace: ctx.namespace, body: svc });
      step.lbs.set(svc.metadata!.name!, `a${(made.metadata?.uid ?? '').replaceAll('-', '')}`.slice(0, 32));
    }
    const before = await settledState(step, 3);
    await ccm.stop();
    ccm = await startCCM('wasm-ccm', ctx, env);
    const taken: Step = { ...step, ccm, impl: 'wasm-ccm' };
    await joinNode(taken, names[3]!);
    const after = await settledState(taken, 4);
    const left = await deleted(taken);
    return { before, after, left };
  } catch (err) {
    throw ccmFailure('handover', err, ccm?.tail());
  } finally {
    await ccm?.stop();
    await deleteNodes(ctx.admin, names);
    await env.close();
  }
}

/** A default NLB, and an externalTrafficPolicy Local one for two source ranges (its NodePorts are the last three). */
function services(ctx: ParityContext): V1Service[] {
  const [a, b, c, d, health] = ctx.nodePorts;
  const port = (name: string, p: number, nodePort: number | undefined) => ({
    name,
    port: p,
    targetPort: p + 8000,
    nodePort,
    protocol: 'TCP',
  });
  return [
    {
      metadata: { name: 'web', annotations: { [TYPE]: 'nlb' } },
      spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [port('http', 80, a), port('https', 443, b)] },
    },
    {
      metadata: { name: 'secure', annotations: { [TYPE]: 'nlb' } },
      spec: {
        type: 'LoadBalancer',
        selector: { app: 'secure' },
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: health,
        loadBalancerSourceRanges: SOURCE_RANGES,
        ports: [port('http', 80, c), port('https', 443, d)],
      },
    },
  ];
}

async function joinNode({ core, ccm, impl }: Step, name: string): Promise<void> {
  await core.createNode({ body: kubeletNode(name) });
  await eventually(
    `${impl}: ${name} initialized`,
    async () => {
      if (!ccm.running()) throw new Error(`${impl} exited`);
      const n = await core.readNode({ name });
      return hasTaint(n, UNINITIALIZED_TAINT.key) ? undefined : true;
    },
    45_000,
  );
}

/** NodePorts named `<service>:<port>` (the health check port `secure:health-check`), NLB names `{nlb:<service>}`. */
function handoverNormalizer({ env, ctx, lbs }: Step): Normalizer {
  const [a, b, c, d, health] = ctx.nodePorts.map(String);
  const ports = new Map([
    [a!, 'web:80'],
    [b!, 'web:443'],
    [c!, 'secure:80'],
    [d!, 'secure:443'],
    [health!, 'secure:health-check'],
  ]);
  const base = normalizer(env, ports);
  const text = (s: string) => [...lbs].reduce((acc, [svc, lb]) => acc.replaceAll(lb, `{nlb:${svc}}`), base.text(s));
  return { ...base, text };
}

/** Waits until both NLBs hold `targets` targets in every group and both Services have their hostname. */
async function settledState(step: Step, targets: number): Promise<HandoverState> {
  const { core, ctx, env, ccm, impl, lbs } = step;
  const norm = handoverNormalizer(step);
  const state = await eventually(
    `${impl}: both NLBs with ${targets} targets`,
    async () => {
      if (!ccm.running()) throw new Error(`${impl} exited`);
      const out: HandoverState = { hostnames: {}, lbs: {}, rules: {}, lbNames: [] };
      for (const [svc, lbName] of lbs) {
        const s = await core.readNamespacedService({ namespace: ctx.namespace, name: svc });
        const lb = await loadBalancerState(env.query, lbName, norm);
        const hostname = s.status?.loadBalancer?.ingress?.[0]?.hostname;
        const ready = lb?.targetGroups.length === 2 && lb.targetGroups.every((tg) => tg.targets.length === targets);
        if (hostname === undefined || lb === undefined || !ready) return undefined;
        out.hostnames[svc] = hostname;
        out.lbs[svc] = lb;
      }
      return out;
    },
    60_000,
    250,
  );
  state.rules = await securityGroupRules(env.query, env.seeded.vpcId, norm);
  state.lbNames = (await ours(step)).loadBalancers.map(norm.text).sort();
  return state;
}

/**
 * moto's ELBv2 inventory, this test's part only: wasm-ccm also serves the LoadBalancer Services other test files
 * leave in the shared cluster.
 */
async function ours({ env, ctx, lbs }: Step): Promise<{ loadBalancers: string[]; rest: string[] }> {
  const inventory = await elbInventory(env.query);
  const names = [...lbs.values()];
  const mine = (n: string): boolean => names.some((lb) => n === lb || n.includes(`/${lb}/`));
  const tgPrefix = `k8s-${ctx.namespace.replace(/[^a-zA-Z0-9]/g, '').slice(0, 8)}-`;
  return {
    loadBalancers: inventory.loadBalancers.filter(mine),
    rest: [...inventory.targetGroups.filter((n) => n.startsWith(tgPrefix)), ...inventory.listeners.filter(mine)],
  };
}

async function deleted(step: Step): Promise<HandoverResult['left']> {
  const { core, ctx, env, ccm, impl, lbs } = step;
  for (const svc of lbs.keys()) await core.deleteNamespacedService({ namespace: ctx.namespace, name: svc });
  await eventually(
    `${impl}: Services deleted`,
    async () => {
      if (!ccm.running()) throw new Error(`${impl} exited`);
      const left = await core.listNamespacedService({ namespace: ctx.namespace });
      return left.items.length === 0;
    },
    45_000,
    250,
  );
  const inventory = await ours(step);
  return {
    inventory: [...inventory.loadBalancers, ...inventory.rest],
    rules: await securityGroupRules(env.query, env.seeded.vpcId, handoverNormalizer(step)),
  };
}
