// Load-balancer scenario at scale: 200 Nodes and 100 LoadBalancer Services, then seeded random edits (churn-plan.ts):
// nodes excluded and included, NotReady and Ready, added and deleted; Service ports, annotations, type changes away
// from LoadBalancer and back, deletions and re-creations. Each step waits until every Service's load balancer shows
// the state the edits lead to, and after a node-set change until the node sync has updated every cached load
// balancer, so the per-Service counts of every Event reason (UpdatedLoadBalancer above all) are compared exactly.
import type { V1ServicePort } from '@kubernetes/client-node';
import { DESCRIPTION, EXCLUDE_LB, GROUP_LABEL, NAMESPACE, port } from '../harness/objects.ts';
import type { Scenario, Step } from '../harness/scenario.ts';
import type { World } from '../harness/world.ts';
import {
  CHURN_SIZE,
  type ChurnEdit,
  type ChurnService,
  type ChurnState,
  type ChurnStep,
  churnNodeName,
  churnServiceName,
  includedNodes,
  initialChurnState,
  planChurn,
} from './churn-plan.ts';

const GROUP = 'churn';
/** Node ports 31900-31999, one per Service, kept through every edit. */
const NODE_PORT_BASE = 31900;
/** Checkpoints every this many steps (and after the last): each covers 200 Nodes and 100 load balancers. */
const CHECKPOINT_EVERY = 10;

const nodePortOf = (service: string): number => NODE_PORT_BASE + Number(service.slice(service.lastIndexOf('-') + 1));

function ports(service: string, s: ChurnService, type: string): V1ServicePort[] {
  return [port('http', s.port, type === 'LoadBalancer' ? nodePortOf(service) : undefined)];
}

const addNodeTo = async (world: World, name: string): Promise<void> => {
  world.cloud.addInstance({ id: `i-${name}`, name });
  await world.createNode({ name, ready: true, initializedAs: `i-${name}`, labels: { [GROUP_LABEL]: GROUP } });
};

async function applyEdit(world: World, edit: ChurnEdit, before: ChurnState): Promise<void> {
  if (edit.on === 'node') {
    const name = edit.node;
    if (edit.kind === 'exclude') await world.patchNode(name, { metadata: { labels: { [EXCLUDE_LB]: 'true' } } });
    else if (edit.kind === 'include') await world.patchNode(name, { metadata: { labels: { [EXCLUDE_LB]: null } } });
    else if (edit.kind === 'notReady' || edit.kind === 'ready') await world.setReady(name, edit.kind === 'ready');
    else if (edit.kind === 'add') await addNodeTo(world, name);
    else await world.core.deleteNode({ name });
    return;
  }
  const name = edit.service;
  const s = before.services.get(name)!;
  const type = s.type ?? 'LoadBalancer';
  switch (edit.kind) {
    case 'port':
      return void (await world.patchService(name, { spec: { ports: ports(name, { ...s, port: edit.port! }, type) } }));
    case 'describe':
      return void (await world.patchService(name, {
        metadata: { annotations: { [DESCRIPTION]: edit.description! } },
      }));
    case 'toClusterIP':
      return void (await world.patchService(name, { spec: { type: 'ClusterIP', ports: ports(name, s, 'ClusterIP') } }));
    case 'toLoadBalancer':
      return void (await world.patchService(name, {
        spec: { type: 'LoadBalancer', ports: ports(name, s, 'LoadBalancer') },
      }));
    case 'delete':
      return void (await world.core.deleteNamespacedService({ name, namespace: NAMESPACE }));
    case 'create':
      return void (await world.createService({ name, group: GROUP, ports: ports(name, { port: 80, type }, type) }));
  }
}

/** What the cluster or the cloud shows that `want` does not (which Nodes exist, every Service's load balancer). */
async function mismatch(world: World, want: ChurnState): Promise<string | undefined> {
  const [nodeList, serviceList] = await Promise.all([
    world.core.listNode(),
    world.core.listNamespacedService({ namespace: NAMESPACE }),
  ]);
  const nodes = nodeList.items.map((n) => n.metadata!.name!).filter((n) => n.startsWith(`${GROUP}-`));
  if (nodes.sort().join(' ') !== [...want.nodes.keys()].sort().join(' ')) return 'the Nodes';
  const existing = new Set(serviceList.items.map((s) => s.metadata!.name!));
  const lbs = new Map(world.cloud.inventory().loadBalancers.map((l) => [l.tags['k8s-service'], l]));
  const backends = includedNodes(want).join(' ');
  for (const [name, s] of want.services) {
    const lb = lbs.get(`${NAMESPACE}/${name}`);
    if (existing.has(name) !== (s.type !== null)) return `${name}: ${s.type === null ? 'not deleted' : 'absent'}`;
    if (s.type !== 'LoadBalancer') {
      if (lb) return `${name}: a load balancer`;
      continue;
    }
    if (lb?.listeners[0]?.port !== s.port) return `${name}: no load balancer on port ${s.port}`;
    if (s.description !== undefined && lb.description !== s.description) return `${name}: not described`;
    if (lb.backends.map((b) => b.name).join(' ') !== backends) return `${name}: other backends`;
  }
  return undefined;
}

/** Polled by `until`: throws what differs, which the timeout names. */
async function expectShown(world: World, want: ChurnState): Promise<true> {
  const problem = await mismatch(world, want);
  if (problem) throw new Error(problem);
  return true;
}

/** updateLoadBalancer calls the cloud has answered (the node sync's, during a Node step). */
const updateCalls = (world: World): number => world.cloud.inventory().counters.updateLoadBalancer?.total ?? 0;

/**
 * Load balancers a node sync updates: one per existing LoadBalancer Service of this controller that has one (every
 * such Service is in the controller's cache: markers, other scenarios', this one's).
 */
async function cachedLoadBalancers(world: World): Promise<number> {
  const services = (await world.core.listNamespacedService({ namespace: NAMESPACE })).items;
  const withLB = new Set(
    world.cloud
      .inventory()
      .loadBalancers.filter((l) => l.tags['k8s-cluster'] === 'kubernetes')
      .map((l) => l.tags['k8s-service']),
  );
  return services.filter(
    (s) =>
      s.spec?.type === 'LoadBalancer' &&
      !s.spec.loadBalancerClass &&
      !s.metadata?.deletionTimestamp &&
      withLB.has(`${NAMESPACE}/${s.metadata!.name!}`),
  ).length;
}

/** updateCalls before the running Node step (steps run one at a time, per side). */
let callsBefore = 0;

function summary(step: ChurnStep): string {
  const node = step.edits.length === 1 && step.edits[0]!.on === 'node' ? step.edits[0] : undefined;
  return node ? `${node.kind} ${node.node}` : `${step.edits.length} Service edits`;
}

function churnStep(step: ChurnStep, n: number, before: ChurnState, last: boolean): Step {
  return {
    name: `edit ${n}: ${summary(step)}`,
    act: async (world) => {
      callsBefore = updateCalls(world);
      for (const edit of step.edits) await applyEdit(world, edit, before);
    },
    until: async (world) => {
      await expectShown(world, step.after);
      if (!step.nodeSetChanged) return true;
      const [done, of] = [updateCalls(world) - callsBefore, await cachedLoadBalancers(world)];
      if (done < of) throw new Error(`the node sync updated ${done} of ${of} load balancers`);
      return true;
    },
    checkpoint: n % CHECKPOINT_EVERY === 0 || last,
  };
}

function churnSteps(): Step[] {
  const plan = planChurn(CHURN_SIZE);
  let before = initialChurnState(CHURN_SIZE);
  return plan.map((step, i) => {
    const out = churnStep(step, i + 1, before, i === plan.length - 1);
    before = step.after;
    return out;
  });
}

const seedNodes = Array.from({ length: CHURN_SIZE.nodes }, (_, i) => churnNodeName(i));
const seedServices = Array.from({ length: CHURN_SIZE.services }, (_, i) => churnServiceName(i));

export const churnScenario: Scenario = {
  name: GROUP,
  seedCloud: (cloud) => {
    for (const name of seedNodes) cloud.addInstance({ id: `i-${name}`, name });
  },
  seedCluster: async (world) => {
    for (let i = 0; i < seedNodes.length; i += 20)
      await Promise.all(
        seedNodes
          .slice(i, i + 20)
          .map((name) =>
            world.createNode({ name, ready: true, initializedAs: `i-${name}`, labels: { [GROUP_LABEL]: GROUP } }),
          ),
      );
  },
  steps: [
    {
      name: `${CHURN_SIZE.services} Services ensured over ${CHURN_SIZE.nodes} nodes`,
      act: async (world) => {
        // One at a time: the VIPs follow the order the CCM ensures them in, the order they were created.
        for (const name of seedServices)
          await world.createService({ name, group: GROUP, ports: [port('http', 80, nodePortOf(name))] });
      },
      until: (world) => expectShown(world, initialChurnState(CHURN_SIZE)),
      checkpoint: false,
    },
    ...churnSteps(),
  ],
};
