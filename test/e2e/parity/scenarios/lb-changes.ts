// Load-balancer scenarios about which Service and Node changes make the service controller act: session affinity,
// external IPs, a requested VIP (spec.loadBalancerIP and the devcloud annotation, one taken already), and Node
// changes that do not touch the node set (an annotation, an unrelated label).
import { port } from '../harness/objects.ts';
import type { Scenario } from '../harness/scenario.ts';
import { groupInstances, groupNodes } from './lb-basics.ts';

const VIP_ANNOTATION = 'service.beta.kubernetes.io/devcloud-vip';

/** chg-svc's EnsuredLoadBalancer count before its annotation is fixed (steps run one at a time, per side). */
let ensuredBeforeFix = 0;

export const serviceChangesScenario: Scenario = {
  name: 'chg',
  seedCloud: (cloud) => groupInstances(cloud, ['chg-a', 'chg-b']),
  seedCluster: (world) => groupNodes(world, 'chg', ['chg-a', 'chg-b']),
  steps: [
    {
      name: 'ensured with a requested VIP',
      act: (world) =>
        world.createService({
          name: 'chg-svc',
          group: 'chg',
          ports: [port('http', 80, 31280)],
          spec: { loadBalancerIP: '198.18.200.1' },
        }),
      until: (world) => world.lb('chg-svc') !== undefined,
    },
    {
      name: 'session affinity ClientIP',
      act: (world) => world.patchService('chg-svc', { spec: { sessionAffinity: 'ClientIP' } }),
    },
    {
      name: 'an external IP',
      act: (world) => world.patchService('chg-svc', { spec: { externalIPs: ['192.0.2.10'] } }),
    },
    {
      name: 'a node annotation and an unrelated label change',
      act: async (world) => {
        await world.patchNode('chg-a', { metadata: { annotations: { 'parity.example/note': 'x' } } });
        await world.patchNode('chg-b', { metadata: { labels: { 'parity.example/colour': 'blue' } } });
      },
    },
    {
      name: 'another Service asks for the same VIP by annotation',
      act: (world) =>
        world.createService({
          name: 'chg-dup',
          group: 'chg',
          ports: [port('http', 80, 31281)],
          annotations: { [VIP_ANNOTATION]: '198.18.200.1' },
        }),
      until: async (world) => (await world.eventCount('Service', 'chg-dup', 'SyncLoadBalancerFailed')) > 0,
    },
    {
      name: 'the VIP annotation and loadBalancerIP disagree',
      act: (world) =>
        world.patchService('chg-svc', { metadata: { annotations: { [VIP_ANNOTATION]: '198.18.200.2' } } }),
      until: async (world) => (await world.eventCount('Service', 'chg-svc', 'SyncLoadBalancerFailed')) > 0,
    },
    {
      // Failing Services are retried on a backoff for as long as they fail: how many retries fit in the rest of
      // the group depends on each side's speed, so the scenario ends with none failing.
      name: 'the disagreement removed, the duplicate deleted',
      act: async (world) => {
        ensuredBeforeFix = await world.eventCount('Service', 'chg-svc', 'EnsuredLoadBalancer');
        await world.patchService('chg-svc', { metadata: { annotations: { [VIP_ANNOTATION]: null } } });
        await world.core.deleteNamespacedService({ name: 'chg-dup', namespace: 'default' });
      },
      until: async (world) =>
        (await world.service('chg-dup')) === undefined &&
        (await world.eventCount('Service', 'chg-svc', 'EnsuredLoadBalancer')) > ensuredBeforeFix,
    },
  ],
};
