// Load-balancer scenarios about the cloud's state before and during the CCM's work: a delete the cloud keeps
// failing, and LBs already in the cloud when the CCM starts.
import { port } from '../harness/objects.ts';
import type { Scenario } from '../harness/scenario.ts';
import type { World } from '../harness/world.ts';
import { groupInstances, groupNodes } from './lb-basics.ts';

const failedDeletes = (world: World): number =>
  world.cloud.inventory().counters.deleteLoadBalancer?.byStatus['500'] ?? 0;

/**
 * A Service deleted while the cloud fails every delete, until four deletes have failed (the queue's next backoff is
 * then 40 s); then the cloud recovers. Upstream's Service informer resyncs every 30 s and a resync of a Service that
 * needs cleanup queues it at once, so upstream deletes the LB within 30 s of the recovery.
 */
export const deleteRetryScenario: Scenario = {
  name: 'delretry',
  seedCloud: (cloud) => groupInstances(cloud, ['delretry-a']),
  seedCluster: (world) => groupNodes(world, 'delretry', ['delretry-a']),
  volatile: {
    path: /event\/Service\/delretry-svc\/[^/]+\/(SyncLoadBalancerFailed|DeletingLoadBalancer)\/count$/,
    reason: 'how many deletes fail depends on where the 30 s resync falls against the backoff',
  },
  steps: [
    {
      name: 'ensured',
      act: (world) =>
        world.createService({ name: 'delretry-svc', group: 'delretry', ports: [port('http', 80, 31080)] }),
      until: (world) => world.lb('delretry-svc') !== undefined,
    },
    {
      name: 'deleted while the cloud fails every delete',
      act: async (world) => {
        world.cloud.setKnobs({ failNext: [{ kind: 'deleteLoadBalancer', count: 1000, status: 500 }] });
        await world.core.deleteNamespacedService({ name: 'delretry-svc', namespace: 'default' });
      },
      until: (world) => failedDeletes(world) >= 4,
      checkpoint: false,
    },
    {
      name: 'the cloud recovers: the LB is deleted within 32 s',
      act: async (world) => world.cloud.setKnobs({ failNext: [] }),
      until: async (world) =>
        world.lb('delretry-svc') === undefined && (await world.service('delretry-svc')) === undefined,
      withinMs: 32_000,
    },
  ],
};

/**
 * LBs in the cloud before the CCM starts: one of a Service that exists (its spec out of date: the CCM's first sync
 * ensures it), one tagged for a Service that no longer exists (nobody garbage-collects it), one of another cluster.
 */
export const preexistingScenario: Scenario = {
  name: 'pre',
  volatile: {
    path: /event\/Service\/pre-svc\/Normal\/UpdatedLoadBalancer\/(count|objects|messages)$/,
    reason:
      "both CCMs run one node sync at start-up (the Node informer's initial list queues it); whether it finds " +
      'pre-svc cached while its first ensure is in flight (and updates its hosts) is timing. The start-up node ' +
      'sync itself is compared in test/e2e/ccm/upstream-metrics.test.ts',
  },
  seedCloud: (cloud) => {
    groupInstances(cloud, ['pre-a', 'pre-b']);
    const tags = (service: string, uid: string) => ({
      'k8s-cluster': 'kubernetes',
      'k8s-service': `default/${service}`,
      'k8s-service-uid': uid,
    });
    cloud.addLoadBalancer({
      name: 'kubernetes-default-pre-gone',
      listeners: [{ protocol: 'TCP', port: 80, nodePort: 31180 }],
      backendInstanceIds: ['i-pre-a'],
      tags: tags('pre-gone', 'f0e1d2c3-0000-4000-8000-000000000001'),
    });
    cloud.addLoadBalancer({
      name: 'other-default-pre-other',
      listeners: [],
      backendInstanceIds: [],
      tags: { 'k8s-cluster': 'other', 'k8s-service': 'default/pre-other' },
    });
  },
  seedCluster: async (world) => {
    await groupNodes(world, 'pre', ['pre-a', 'pre-b']);
    const svc = await world.createService({
      name: 'pre-svc',
      group: 'pre',
      ports: [port('http', 80, 31181)],
      finalizers: ['service.kubernetes.io/load-balancer-cleanup'],
    });
    world.cloud.addLoadBalancer({
      name: 'kubernetes-default-pre-svc',
      listeners: [{ protocol: 'TCP', port: 8080, nodePort: 31182 }],
      backendInstanceIds: ['i-pre-a'],
      description: 'out of date',
      tags: {
        'k8s-cluster': 'kubernetes',
        'k8s-service': 'default/pre-svc',
        'k8s-service-uid': svc.metadata!.uid!,
      },
    });
  },
  steps: [
    {
      name: 'the existing LB brought up to date at start',
      until: (world) => world.lb('pre-svc')?.description !== 'out of date',
    },
  ],
};
