// Load-balancer scenarios about which Services and which Nodes the service controller takes: classes, exclusion
// label values, NotReady / unschedulable / autoscaler-tainted / deleting Nodes; and about what makes it re-ensure
// or clean up: source range order, a finalizer removed by hand.
import { EXCLUDE_LB, GROUP_LABEL, LB_FINALIZER, port, TO_BE_DELETED } from '../harness/objects.ts';
import type { Scenario } from '../harness/scenario.ts';
import type { World } from '../harness/world.ts';
import { backendsOf } from './checks.ts';
import { groupInstances, groupNodes } from './lb-basics.ts';

/** Services of a class nobody serves here: left alone (a finalizer given at creation too). */
export const classScenario: Scenario = {
  name: 'class',
  seedCloud: (cloud) => groupInstances(cloud, ['class-a']),
  seedCluster: (world) => groupNodes(world, 'class', ['class-a']),
  steps: [
    {
      name: 'other classes, one created with the cleanup finalizer',
      act: async (world) => {
        const spec = { loadBalancerClass: 'example.com/other' };
        await world.createService({ name: 'class-plain', group: 'class', ports: [port('http', 80, 30580)], spec });
        await world.createService({
          name: 'class-final',
          group: 'class',
          ports: [port('http', 80, 30581)],
          spec,
          finalizers: [LB_FINALIZER],
        });
      },
      settle: ['service'],
    },
  ],
};

/** Values of the exclude label (upstream: strconv.ParseBool; a false value keeps the node). */
const EXCLUDE_VALUES: readonly (readonly [string, string])[] = [
  ['true', 'true'],
  ['false', 'false'],
  ['cfalse', 'False'],
  ['ufalse', 'FALSE'],
  ['zero', '0'],
  ['f', 'f'],
  ['cf', 'F'],
  ['one', '1'],
  ['empty', ''],
  ['yes', 'yes'],
];
const EXCLUDE_NODES = [...EXCLUDE_VALUES.map(([n]) => `excl-${n}`), 'excl-none'];

export const exclusionScenario: Scenario = {
  name: 'excl',
  seedCloud: (cloud) => groupInstances(cloud, EXCLUDE_NODES),
  seedCluster: async (world) => {
    await groupNodes(world, 'excl', ['excl-none']);
    for (const [n, value] of EXCLUDE_VALUES)
      await world.createNode({
        name: `excl-${n}`,
        ready: true,
        initializedAs: `i-excl-${n}`,
        labels: { [GROUP_LABEL]: 'excl', [EXCLUDE_LB]: value },
      });
  },
  steps: [
    {
      name: 'ensured over the label values',
      act: (world) => world.createService({ name: 'excl-svc', group: 'excl', ports: [port('http', 80, 30680)] }),
      until: (world) => world.lb('excl-svc') !== undefined,
    },
    {
      name: 'true becomes false',
      act: (world) => world.patchNode('excl-true', { metadata: { labels: { [EXCLUDE_LB]: 'false' } } }),
      until: (world) => (backendsOf(world, 'excl-svc') ?? []).includes('excl-true'),
    },
    {
      name: 'the label is removed from excl-yes',
      act: (world) => world.patchNode('excl-yes', { metadata: { labels: { [EXCLUDE_LB]: null } } }),
      until: (world) => (backendsOf(world, 'excl-svc') ?? []).includes('excl-yes'),
    },
  ],
};

const HOLD = 'parity.example/hold';

/** A Service created now takes the node set as the controller's cache has it: a positive sign it saw a change. */
function probe(name: string, nodePort: number) {
  return async (world: World): Promise<void> => {
    await world.createService({ name, group: 'ns', ports: [port('http', 80, nodePort)] });
  };
}

export const nodeStatesScenario: Scenario = {
  name: 'ns',
  volatile: {
    path: /^checkpoint\/ns\/[^/]+\/event\/Service\/ns-probe1\/Normal\/UpdatedLoadBalancer\//,
    reason:
      "the node sync's update of ns-probe1 runs beside the service queue the watermarks mark, so under load its " +
      'Event can fall in the checkpoint after the step that caused it (seen once); the final snapshot compares its count',
  },
  seedCloud: (cloud) =>
    groupInstances(cloud, ['ns-ready', 'ns-notready', 'ns-unsched', 'ns-tainted', 'ns-later', 'ns-deleting']),
  seedCluster: async (world) => {
    await groupNodes(world, 'ns', ['ns-ready', 'ns-later', 'ns-deleting']);
    const labels = { [GROUP_LABEL]: 'ns' };
    await world.createNode({ name: 'ns-notready', ready: false, initializedAs: 'i-ns-notready', labels });
    await world.createNode({
      name: 'ns-unsched',
      ready: true,
      initializedAs: 'i-ns-unsched',
      labels,
      unschedulable: true,
    });
    await world.createNode({
      name: 'ns-tainted',
      ready: true,
      initializedAs: 'i-ns-tainted',
      labels,
      taints: [{ key: TO_BE_DELETED, value: '1700000000', effect: 'NoSchedule' }],
    });
  },
  steps: [
    {
      name: 'ensured',
      act: (world) => world.createService({ name: 'ns-svc', group: 'ns', ports: [port('http', 80, 30780)] }),
      until: (world) => world.lb('ns-svc') !== undefined,
    },
    {
      name: 'ns-later gets the autoscaler taint',
      act: async (world) => {
        await world.patchNode('ns-later', {
          spec: { taints: [{ key: TO_BE_DELETED, value: '1700000001', effect: 'NoSchedule' }] },
        });
        await probe('ns-probe1', 30781)(world);
      },
      until: (world) =>
        world.lb('ns-probe1') !== undefined && !(backendsOf(world, 'ns-probe1') ?? []).includes('ns-later'),
    },
    {
      name: 'ns-deleting is deleted (held by a finalizer)',
      act: async (world) => {
        await world.patchNode('ns-deleting', { metadata: { finalizers: [HOLD] } });
        await world.core.deleteNode({ name: 'ns-deleting' });
        await probe('ns-probe2', 30782)(world);
      },
      until: (world) =>
        world.lb('ns-probe2') !== undefined && !(backendsOf(world, 'ns-probe2') ?? []).includes('ns-deleting'),
    },
    {
      name: 'the finalizer goes, the Node with it',
      act: (world) => world.patchNode('ns-deleting', { metadata: { finalizers: null } }),
      until: (world) => !(backendsOf(world, 'ns-svc') ?? ['ns-deleting']).includes('ns-deleting'),
    },
  ],
};

/** Source ranges reordered (upstream re-ensures), then changed. */
export const sourceRangesScenario: Scenario = {
  name: 'ranges',
  seedCloud: (cloud) => groupInstances(cloud, ['ranges-a']),
  seedCluster: (world) => groupNodes(world, 'ranges', ['ranges-a']),
  steps: [
    {
      name: 'ensured',
      act: (world) =>
        world.createService({
          name: 'ranges-svc',
          group: 'ranges',
          ports: [port('http', 80, 30880)],
          spec: { loadBalancerSourceRanges: ['10.1.0.0/16', '10.2.0.0/16'] },
        }),
      until: (world) => world.lb('ranges-svc') !== undefined,
    },
    {
      name: 'reordered',
      act: (world) =>
        world.patchService('ranges-svc', { spec: { loadBalancerSourceRanges: ['10.2.0.0/16', '10.1.0.0/16'] } }),
    },
    {
      name: 'one added',
      act: (world) =>
        world.patchService('ranges-svc', {
          spec: { loadBalancerSourceRanges: ['10.2.0.0/16', '10.1.0.0/16', '10.3.0.0/16'] },
        }),
      until: (world) => (world.lb('ranges-svc')?.sourceRanges ?? []).includes('10.3.0.0/16'),
    },
  ],
};

/** The cleanup finalizer removed by hand, then the Service deleted. */
export const orphanScenario: Scenario = {
  name: 'orphan',
  seedCloud: (cloud) => groupInstances(cloud, ['orphan-a']),
  seedCluster: (world) => groupNodes(world, 'orphan', ['orphan-a']),
  steps: [
    {
      name: 'ensured',
      act: (world) => world.createService({ name: 'orphan-svc', group: 'orphan', ports: [port('http', 80, 30980)] }),
      until: (world) => world.lb('orphan-svc') !== undefined,
    },
    {
      name: 'finalizer removed by hand',
      act: (world) => world.patchService('orphan-svc', { metadata: { finalizers: null } }),
    },
    {
      name: 'deleted',
      act: (world) => world.core.deleteNamespacedService({ name: 'orphan-svc', namespace: 'default' }),
      until: async (world) => (await world.service('orphan-svc')) === undefined,
    },
  ],
};
