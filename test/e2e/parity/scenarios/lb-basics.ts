// Load-balancer scenarios of the service controller: ensure, annotate, node-set changes, a throttled create,
// source ranges with externalTrafficPolicy Local, a refused annotation, delete; type, port and policy changes.
import { DESCRIPTION, EXCLUDE_LB, GROUP_LABEL, HEALTH_CHECK, port } from '../harness/objects.ts';
import type { Scenario } from '../harness/scenario.ts';
import type { World } from '../harness/world.ts';
import { backendsOf, ingressOf } from './checks.ts';

const hc = { [HEALTH_CHECK]: '10256' };

export const webScenario: Scenario = {
  name: 'web',
  seedCloud: (cloud) => {
    for (const n of ['a', 'b', 'c']) cloud.addInstance({ id: `i-web-${n}`, name: `web-${n}` });
  },
  seedCluster: async (world) => {
    for (const n of ['a', 'b'])
      await world.createNode({
        name: `web-${n}`,
        ready: true,
        initializedAs: `i-web-${n}`,
        labels: { [GROUP_LABEL]: 'web' },
      });
  },
  steps: [
    {
      name: 'ensured',
      act: (world) =>
        world.createService({ name: 'web-svc', group: 'web', ports: [port('http', 80, 30080)], annotations: hc }),
      until: async (world) => (await ingressOf(world, 'web-svc')) !== undefined,
    },
    {
      name: 'annotated',
      act: (world) => world.patchService('web-svc', { metadata: { annotations: { [DESCRIPTION]: 'parity web' } } }),
      until: (world) => world.lb('web-svc')?.description === 'parity web',
    },
    {
      name: 'a node joins',
      // Initialized already: a tainted node would be synced once or twice (at its Add, and again when cloud-node
      // sets its providerID) depending on which controller gets to it first, on either CCM.
      act: (world) =>
        world.createNode({ name: 'web-c', ready: true, initializedAs: 'i-web-c', labels: { [GROUP_LABEL]: 'web' } }),
      until: (world) => (backendsOf(world, 'web-svc') ?? []).includes('web-c'),
    },
    {
      name: 'a node is excluded',
      act: (world) => world.patchNode('web-b', { metadata: { labels: { [EXCLUDE_LB]: 'true' } } }),
      until: (world) => !(backendsOf(world, 'web-svc') ?? ['web-b']).includes('web-b'),
    },
    {
      name: 'a throttled create (429, Retry-After 1 s)',
      act: async (world) => {
        world.cloud.setKnobs({
          failNext: [{ kind: 'createLoadBalancer', count: 1, status: 429 }],
          retryAfterSeconds: 1,
        });
        await world.createService({
          name: 'web-keep',
          group: 'web',
          ports: [port('https', 443, 30443)],
          annotations: hc,
        });
      },
      until: async (world) => (await ingressOf(world, 'web-keep')) !== undefined,
    },
    {
      name: 'source ranges and externalTrafficPolicy Local',
      act: (world) =>
        world.createService({
          name: 'web-local',
          group: 'web',
          ports: [port('https', 8443, 30444)],
          spec: {
            loadBalancerSourceRanges: ['10.0.0.0/8', '192.168.0.0/16 '],
            externalTrafficPolicy: 'Local',
            healthCheckNodePort: 32100,
          },
        }),
      until: async (world) => (await ingressOf(world, 'web-local')) !== undefined,
    },
    {
      name: 'an unknown annotation refused',
      act: (world) =>
        world.createService({
          name: 'web-bad',
          group: 'web',
          ports: [port('http', 9090, 30909)],
          annotations: { 'service.beta.kubernetes.io/devcloud-bogus': 'x' },
        }),
      until: async (world) => (await world.eventCount('Service', 'web-bad', 'SyncLoadBalancerFailed')) > 0,
    },
    {
      name: 'the unknown annotation removed',
      act: (world) =>
        world.patchService('web-bad', {
          metadata: { annotations: { 'service.beta.kubernetes.io/devcloud-bogus': null } },
        }),
      until: (world) => world.lb('web-bad') !== undefined,
    },
    {
      name: 'deleted',
      act: (world) => world.core.deleteNamespacedService({ name: 'web-svc', namespace: 'default' }),
      until: async (world) => (await world.service('web-svc')) === undefined && world.lb('web-svc') === undefined,
    },
  ],
};

/** Nodes of a scenario's own group, initialized and Ready. */
export async function groupNodes(world: World, group: string, names: readonly string[]): Promise<void> {
  for (const name of names)
    await world.createNode({ name, ready: true, initializedAs: `i-${name}`, labels: { [GROUP_LABEL]: group } });
}

export function groupInstances(cloud: { addInstance(spec: { id: string; name: string }): unknown }, names: string[]) {
  for (const name of names) cloud.addInstance({ id: `i-${name}`, name });
}

const hasLB = (name: string) => (world: World) => world.lb(name) !== undefined;
const noLB = (name: string) => (world: World) => world.lb(name) === undefined;

/** ClusterIP -> LoadBalancer -> ClusterIP -> NodePort -> LoadBalancer. */
export const typeChangeScenario: Scenario = {
  name: 'types',
  seedCloud: (cloud) => groupInstances(cloud, ['types-a']),
  seedCluster: (world) => groupNodes(world, 'types', ['types-a']),
  steps: [
    {
      name: 'ClusterIP',
      act: (world) =>
        world.createService({
          name: 'types-svc',
          group: 'types',
          type: 'ClusterIP',
          ports: [port('http', 80, undefined)],
        }),
    },
    {
      name: 'to LoadBalancer',
      act: (world) =>
        world.patchService('types-svc', { spec: { type: 'LoadBalancer', ports: [port('http', 80, 30180)] } }),
      until: hasLB('types-svc'),
    },
    {
      name: 'back to ClusterIP',
      act: (world) =>
        world.patchService('types-svc', { spec: { type: 'ClusterIP', ports: [port('http', 80, undefined)] } }),
      until: noLB('types-svc'),
    },
    {
      name: 'to NodePort',
      act: (world) => world.patchService('types-svc', { spec: { type: 'NodePort', ports: [port('http', 80, 30181)] } }),
    },
    {
      name: 'NodePort to LoadBalancer',
      act: (world) => world.patchService('types-svc', { spec: { type: 'LoadBalancer' } }),
      until: hasLB('types-svc'),
    },
    {
      name: 'LoadBalancer to NodePort',
      act: (world) => world.patchService('types-svc', { spec: { type: 'NodePort' } }),
      until: noLB('types-svc'),
    },
  ],
};

/** Mixed protocols, then ports renumbered, added and removed. */
export const portsScenario: Scenario = {
  name: 'ports',
  seedCloud: (cloud) => groupInstances(cloud, ['ports-a']),
  seedCluster: (world) => groupNodes(world, 'ports', ['ports-a']),
  steps: [
    {
      name: 'TCP and UDP',
      act: (world) =>
        world.createService({
          name: 'ports-svc',
          group: 'ports',
          ports: [port('http', 80, 30280), port('dns', 53, 30253, 'UDP')],
        }),
      until: hasLB('ports-svc'),
    },
    {
      name: 'renumbered, one added, UDP removed',
      act: (world) =>
        world.patchService('ports-svc', {
          spec: { ports: [port('http', 8080, 30280), port('https', 443, 30243), port('dns', 53, 30254, 'SCTP')] },
        }),
      until: (world) => (world.lb('ports-svc')?.listeners ?? []).some((l) => l.port === 8080),
    },
  ],
};

/** allocateLoadBalancerNodePorts=false, with and without node ports given. */
export const noNodePortsScenario: Scenario = {
  name: 'nonp',
  seedCloud: (cloud) => groupInstances(cloud, ['nonp-a']),
  seedCluster: (world) => groupNodes(world, 'nonp', ['nonp-a']),
  steps: [
    {
      name: 'with and without node ports',
      act: async (world) => {
        const spec = { allocateLoadBalancerNodePorts: false };
        await world.createService({ name: 'nonp-given', group: 'nonp', ports: [port('http', 80, 30380)], spec });
        await world.createService({ name: 'nonp-none', group: 'nonp', ports: [port('http', 80, undefined)], spec });
      },
      until: async (world) =>
        world.lb('nonp-given') !== undefined &&
        (await world.eventCount('Service', 'nonp-none', 'SyncLoadBalancerFailed')) > 0,
    },
    {
      name: 'a node port given later',
      act: (world) => world.patchService('nonp-none', { spec: { ports: [port('http', 80, 30381)] } }),
      until: hasLB('nonp-none'),
    },
    {
      // The failed first sync is retried after its 5 s backoff, re-ensuring and recording the node set: a node sync
      // of a later scenario before that retry updates the LB, one after it does not, so the group waits for it.
      name: 'the failed sync retried after its backoff',
      until: async (world) => (await world.eventCount('Service', 'nonp-none', 'EnsuringLoadBalancer')) >= 3,
      withinMs: 15_000,
    },
  ],
};

/** externalTrafficPolicy Cluster -> Local -> Cluster (the health check port follows). */
export const trafficPolicyScenario: Scenario = {
  name: 'etp',
  seedCloud: (cloud) => groupInstances(cloud, ['etp-a']),
  seedCluster: (world) => groupNodes(world, 'etp', ['etp-a']),
  steps: [
    {
      name: 'Cluster',
      act: (world) =>
        world.createService({ name: 'etp-svc', group: 'etp', ports: [port('http', 80, 30480)], annotations: hc }),
      until: hasLB('etp-svc'),
    },
    {
      name: 'to Local',
      act: (world) =>
        world.patchService('etp-svc', { spec: { externalTrafficPolicy: 'Local', healthCheckNodePort: 32400 } }),
      until: (world) => world.lb('etp-svc')?.healthCheckNodePort === 32400,
    },
    {
      name: 'back to Cluster',
      act: (world) =>
        world.patchService('etp-svc', { spec: { externalTrafficPolicy: 'Cluster', healthCheckNodePort: null } }),
      until: (world) => world.lb('etp-svc')?.healthCheckNodePort === 10256,
    },
  ],
};
