// Scenarios of the route controller: dual-stack pod CIDRs, a non-canonical IPv6 route, stray routes seeded in the
// cloud (unknown node, wrong CIDR, blackhole, outside the cluster CIDR, another cluster's).
import type { Scenario } from '../harness/scenario.ts';
import { routed } from './checks.ts';

const OURS = { 'k8s-cluster': 'kubernetes' };

export const dualStackScenario: Scenario = {
  name: 'v6',
  volatile: {
    path: /event\/Node\/v6-a\/Warning\/FailedToCreateRoute\//,
    reason:
      'upstream creates the canonical route and deletes the non-canonical one concurrently: the create fails ' +
      '(cidr_in_use) only when it reaches the cloud first, and succeeds on the next reconcile',
  },
  seedCloud: (cloud) => {
    cloud.addInstance({ id: 'i-v6-a', name: 'v6-a' });
    cloud.addInstance({ id: 'i-v6-b', name: 'v6-b' });
    // v6-a's IPv6 pod CIDR, routed already but written non-canonically.
    cloud.addRoute({
      name: 'v6-seeded',
      destinationCidr: 'fd00:10:244:4:0:0:0:0/64',
      targetInstanceId: 'i-v6-a',
      tags: { ...OURS, 'k8s-node': 'v6-a' },
    });
  },
  seedCluster: async (world) => {
    await world.createNode({
      name: 'v6-a',
      ready: true,
      initializedAs: 'i-v6-a',
      podCIDRs: ['10.244.40.0/24', 'fd00:10:244:4::/64'],
    });
    await world.createNode({
      name: 'v6-b',
      ready: true,
      initializedAs: 'i-v6-b',
      podCIDRs: ['10.244.41.0/24', 'fd00:10:244:5::/64'],
    });
  },
  steps: [
    {
      name: 'routes for both families',
      until: (world) => routed(world, 'v6-a', 'v6-b'),
      settle: ['route', 'route', 'route'],
    },
  ],
};

export const strayRoutesScenario: Scenario = {
  name: 'stray',
  seedCloud: (cloud) => {
    cloud.addInstance({ id: 'i-stray-a', name: 'stray-a' });
    cloud.addInstance({ id: 'i-stray-gone', name: 'stray-gone' });
    cloud.terminateInstance('i-stray-gone');
    const route = (name: string, cidr: string, target: string, tags: Record<string, string>) =>
      cloud.addRoute({ name, destinationCidr: cidr, targetInstanceId: target, tags });
    route('stray-ghost', '10.244.62.0/24', 'i-stray-a', { ...OURS, 'k8s-node': 'stray-ghost' });
    route('stray-wrong-cidr', '10.244.63.0/24', 'i-stray-a', { ...OURS, 'k8s-node': 'stray-a' });
    route('stray-untagged', '10.244.64.0/24', 'i-stray-a', OURS);
    route('stray-blackhole', '10.244.65.0/24', 'i-stray-gone', { ...OURS, 'k8s-node': 'stray-gone' });
    route('stray-outside', '192.168.7.0/24', 'i-stray-a', { ...OURS, 'k8s-node': 'stray-a' });
    route('stray-other-cluster', '10.244.66.0/24', 'i-stray-a', { 'k8s-cluster': 'other', 'k8s-node': 'stray-x' });
  },
  seedCluster: (world) =>
    world.createNode({ name: 'stray-a', ready: true, initializedAs: 'i-stray-a', podCIDRs: ['10.244.60.0/24'] }),
  steps: [
    {
      name: 'strays removed, the node routed',
      until: (world) => routed(world, 'stray-a'),
      settle: ['route', 'route'],
    },
  ],
};

/** The cloud fails the first two route creations for a joining node: NetworkUnavailable, then routed. */
export const routeFailureScenario: Scenario = {
  name: 'rfail',
  seedCloud: (cloud) => void cloud.addInstance({ id: 'i-rfail-a', name: 'rfail-a' }),
  steps: [
    {
      name: 'two creations fail, then the route exists',
      act: async (world) => {
        world.cloud.setKnobs({ failNext: [{ kind: 'createRoute', count: 2, status: 500 }] });
        await world.createNode({
          name: 'rfail-a',
          ready: true,
          initializedAs: 'i-rfail-a',
          podCIDRs: ['10.244.71.0/24'],
        });
      },
      until: (world) => routed(world, 'rfail-a'),
      settle: ['route'],
    },
  ],
};
