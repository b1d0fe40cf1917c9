// Load-balancer scenario about upstream's service cache: node syncs walk the Services the controller has synced and
// not yet cleaned up, not the Services that exist. A Service deleted after its cleanup finalizer was stripped by hand
// and a Service whose deletion the cloud keeps failing both follow node joins; a failed update of the first is
// retried through a sync that finds it gone and deletes its load balancer.
import { GROUP_LABEL, port } from '../harness/objects.ts';
import type { Scenario } from '../harness/scenario.ts';
import type { World } from '../harness/world.ts';
import { backendsOf } from './checks.ts';
import { groupInstances, groupNodes } from './lb-basics.ts';

const includes = (world: World, service: string, node: string): boolean =>
  (backendsOf(world, service) ?? []).includes(node);

export const serviceCacheScenario: Scenario = {
  name: 'cache',
  // No instance for cache-ghost: a load balancer update naming it as a backend is refused by the cloud.
  seedCloud: (cloud) => groupInstances(cloud, ['cache-a', 'cache-b']),
  seedCluster: (world) => groupNodes(world, 'cache', ['cache-a']),
  volatile: {
    path: /event\/Service\/cache-(deleting\/[^/]+\/(SyncLoadBalancerFailed|DeletingLoadBalancer)\/count|orphan\/Warning\/UpdateLoadBalancerFailed\/messages)$/,
    reason:
      'how many deletes fail depends on where the backoff falls; upstream names the first 20 nodes of its lister, ' +
      'a Go map, so which nodes the UpdateLoadBalancerFailed message lists differs from run to run',
  },
  steps: [
    {
      name: 'ensured',
      act: async (world) => {
        await world.createService({ name: 'cache-orphan', group: 'cache', ports: [port('http', 80, 31380)] });
        await world.createService({ name: 'cache-deleting', group: 'cache', ports: [port('http', 80, 31381)] });
      },
      until: (world) => world.lb('cache-orphan') !== undefined && world.lb('cache-deleting') !== undefined,
    },
    {
      name: 'one deleted without its finalizer, one deleted while the cloud fails every delete',
      act: async (world) => {
        await world.patchService('cache-orphan', { metadata: { finalizers: null } });
        await world.core.deleteNamespacedService({ name: 'cache-orphan', namespace: 'default' });
        world.cloud.setKnobs({ failNext: [{ kind: 'deleteLoadBalancer', count: 1000, status: 500 }] });
        await world.core.deleteNamespacedService({ name: 'cache-deleting', namespace: 'default' });
      },
      until: async (world) =>
        (await world.service('cache-orphan')) === undefined &&
        (await world.eventCount('Service', 'cache-deleting', 'SyncLoadBalancerFailed')) >= 1,
    },
    {
      name: 'a node joins: both load balancers follow it',
      act: (world) =>
        world.createNode({
          name: 'cache-b',
          ready: true,
          initializedAs: 'i-cache-b',
          labels: { [GROUP_LABEL]: 'cache' },
        }),
      until: (world) => includes(world, 'cache-orphan', 'cache-b') && includes(world, 'cache-deleting', 'cache-b'),
    },
    {
      name: 'the cloud recovers: the Service being deleted goes at its next sync',
      act: async (world) => {
        world.cloud.setKnobs({ failNext: [] });
        // Any update of a Service that needs cleanup queues it at once: no wait for the backoff.
        await world.patchService('cache-deleting', { metadata: { labels: { 'parity.example/poke': '1' } } });
      },
      until: async (world) =>
        world.lb('cache-deleting') === undefined && (await world.service('cache-deleting')) === undefined,
    },
    {
      name: 'a node without an instance joins: the update fails, and the deleted Service loses its load balancer',
      act: (world) =>
        world.createNode({
          name: 'cache-ghost',
          ready: true,
          initializedAs: 'i-cache-ghost',
          labels: { [GROUP_LABEL]: 'cache' },
        }),
      until: (world) => world.lb('cache-orphan') === undefined,
    },
  ],
};
