// Scenarios of client-go's event correlator, on both CCMs: the spam budget is per event type (a Service that used
// its 25 Normal events still gets its Warning), and similar events with many distinct messages are combined.
import { DESCRIPTION, HEALTH_CHECK, port } from '../harness/objects.ts';
import type { Scenario, Step } from '../harness/scenario.ts';
import { groupNodes } from './lb-basics.ts';
import { routed } from './checks.ts';

/** Description changes after the create: each is an EnsuringLoadBalancer and an EnsuredLoadBalancer event. */
const CHANGES = 12;

function describeStep(n: number, name = `description ${n}`): Step {
  return {
    name,
    act: (world) => world.patchService('budget-svc', { metadata: { annotations: { [DESCRIPTION]: `d${n}` } } }),
    until: (world) => world.lb('budget-svc')?.description === `d${n}`,
    checkpoint: n === CHANGES,
  };
}

/** An annotation both providers refuse: the Service's own failure, which no other scenario's retry can take. */
const REFUSED = 'service.beta.kubernetes.io/devcloud-bogus';

/**
 * 2 + 2 x 12 Normal events use the Service's budget of 25 (the 12th change's EnsuredLoadBalancer is the 26th and
 * is dropped); then an annotation the provider refuses: the SyncLoadBalancerFailed Warning has a budget of its own
 * and is recorded. The annotation goes at once, long before the 5 s retry, whose Normal events are dropped.
 */
export const budgetScenario: Scenario = {
  name: 'budget',
  seedCloud: (cloud) => void cloud.addInstance({ id: 'i-budget-a', name: 'budget-a' }),
  seedCluster: (world) => groupNodes(world, 'budget', ['budget-a']),
  steps: [
    {
      name: 'ensured',
      act: (world) =>
        world.createService({
          name: 'budget-svc',
          group: 'budget',
          ports: [port('http', 80, 31880)],
          annotations: { [HEALTH_CHECK]: '10256', [DESCRIPTION]: 'd0' },
        }),
      until: (world) => world.lb('budget-svc')?.description === 'd0',
      checkpoint: false,
    },
    ...Array.from({ length: CHANGES }, (_, i) => describeStep(i + 1)),
    {
      name: 'a refused annotation after the Normal budget is spent: its Warning is recorded',
      act: (world) => world.patchService('budget-svc', { metadata: { annotations: { [REFUSED]: 'x' } } }),
      until: async (world) => (await world.eventCount('Service', 'budget-svc', 'SyncLoadBalancerFailed')) > 0,
      checkpoint: false,
    },
    {
      ...describeStep(CHANGES + 1, 'the annotation removed'),
      act: (world) =>
        world.patchService('budget-svc', {
          metadata: { annotations: { [REFUSED]: null, [DESCRIPTION]: `d${CHANGES + 1}` } },
        }),
      checkpoint: true,
    },
  ],
};

/**
 * A dual-stack Node whose first 12 route creations fail, two per reconcile: each FailedToCreateRoute message is
 * distinct (it says how long the call took), so from the 10th on they are one aggregate Event, "(combined from
 * similar events): ...", with count 3.
 */
export const routeAggregationScenario: Scenario = {
  name: 'ragg',
  volatile: {
    path: /event\/Node\/ragg-a\/Warning\/FailedToCreateRoute\/messages$/,
    reason:
      "the aggregate Event carries the last failure's message, and which family's creation fails last in a " +
      'reconcile (both run concurrently) differs from run to run; its count and the number of Events do not',
  },
  seedCloud: (cloud) => void cloud.addInstance({ id: 'i-ragg-a', name: 'ragg-a' }),
  steps: [
    {
      name: 'twelve creations fail, then the routes exist',
      act: async (world) => {
        world.cloud.setKnobs({ failNext: [{ kind: 'createRoute', count: 12, status: 500 }] });
        await world.createNode({
          name: 'ragg-a',
          ready: true,
          initializedAs: 'i-ragg-a',
          podCIDRs: ['10.244.81.0/24', 'fd00:10:244:81::/64'],
        });
      },
      until: (world) => routed(world, 'ragg-a'),
      settle: ['route'],
    },
  ],
};
