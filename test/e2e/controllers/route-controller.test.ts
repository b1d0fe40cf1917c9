// The route controller against the real apiserver with a recording FakeProvider.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RouteController } from '../../../host/src/controllers/route/route-controller.ts';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { parseClusterCIDRs } from '../../../host/src/net/cidr.ts';
import { eventually, type Harness, startHarness } from '../../support/controller-harness.ts';
import { FakeProvider } from '../../support/fake-provider.ts';
import { adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';

describe('route controller', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  const prefix = uniqueName('rt');
  const cloud = new FakeProvider();
  let harness: Harness;
  let controller: RouteController;

  const condition = async (name: string) =>
    (await core.readNodeStatus({ name })).status?.conditions?.find((c) => c.type === 'NetworkUnavailable');

  beforeAll(async () => {
    await core.createNode({
      body: { metadata: { name: `${prefix}-a` }, spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] } },
    });
    await core.createNode({
      body: { metadata: { name: `${prefix}-b` }, spec: { podCIDR: '10.244.2.0/24', podCIDRs: ['10.244.2.0/24'] } },
    });
    await core.createNode({ body: { metadata: { name: `${prefix}-none` } } });
    await core.createNode({ body: { metadata: { name: `${prefix}-routed` } } });
    // Routes the cloud already has: one stale (node gone), one blackholed, one outside the cluster CIDR.
    cloud.routeTable = [
      {
        name: 'stale',
        targetNode: `${prefix}-gone`,
        targetNodeAddresses: [],
        destinationCIDR: '10.244.9.0/24',
        blackhole: false,
      },
      {
        name: 'hole',
        targetNode: `${prefix}-b`,
        targetNodeAddresses: [],
        destinationCIDR: '10.244.2.0/24',
        blackhole: true,
      },
      {
        name: 'to-routed',
        targetNode: `${prefix}-routed`,
        targetNodeAddresses: [],
        destinationCIDR: '192.168.7.0/24',
        blackhole: false,
      },
      {
        name: 'foreign',
        targetNode: 'elsewhere',
        targetNodeAddresses: [],
        destinationCIDR: '192.168.5.0/24',
        blackhole: false,
      },
    ];
    harness = await startHarness(info, 'route-controller');
    controller = new RouteController({
      client: harness.client,
      nodes: harness.informers.nodes,
      routes: cloud.routes()!,
      clusterName: 'kubernetes',
      clusterCIDRs: parseClusterCIDRs('10.244.0.0/16'),
      recorder: harness.recorder,
      logger: silentLogger,
      periodMs: 3_600_000,
      leaseFresh: () => true,
    });
    harness.informers.start();
    await harness.informers.waitForSync(new AbortController().signal);
  });

  afterAll(async () => {
    await harness?.stop();
    for (const s of ['a', 'b', 'none', 'routed'])
      await core.deleteNode({ name: `${prefix}-${s}` }).catch(() => undefined);
  });

  it('creates missing routes (nameHint = node UID), deletes stale and blackholed ones inside the cluster CIDR', async () => {
    await controller.reconcile();
    const created = () =>
      cloud.calls
        .filter((c) => c.method === 'create-route')
        .map((c) => [c.args[1], (c.args[2] as { destinationCIDR: string }).destinationCIDR]);
    const uidA = (await core.readNode({ name: `${prefix}-a` })).metadata?.uid;
    const uidB = (await core.readNode({ name: `${prefix}-b` })).metadata?.uid;
    // As upstream: b's blackholed route counts as present in this pass (so nothing is created for b) and is
    // deleted; the next pass creates b's route.
    expect(created()).toEqual([[uidA, '10.244.1.0/24']]);
    const deleted = cloud.calls
      .filter((c) => c.method === 'delete-route')
      .map((c) => (c.args[1] as { name: string }).name);
    expect(deleted.sort()).toEqual(['hole', 'stale']);
    expect(cloud.routeTable.filter((r) => r.name === 'foreign' || r.name === 'to-routed')).toHaveLength(2);
    await controller.reconcile();
    expect(created()).toContainEqual([uidB, '10.244.2.0/24']);
  });

  it('sets NetworkUnavailable=False/RouteCreated on routed nodes; a node without pod CIDRs keeps its condition unless a route targets it', async () => {
    expect(await condition(`${prefix}-a`)).toMatchObject({ status: 'False', reason: 'RouteCreated' });
    // Upstream skips a node that is only waiting for its pod CIDR: no condition (it would taint the node).
    expect(await condition(`${prefix}-none`)).toBeUndefined();
    // ... but marks one that a cloud route points at (the route is outside the cluster CIDR, so it stays).
    expect(await condition(`${prefix}-routed`)).toMatchObject({ status: 'True', reason: 'NoRouteCreated' });
  });

  it('is idempotent: a second pass with everything in place calls only listRoutes', async () => {
    await eventually('informer sees the conditions', () =>
      harness.informers.nodes.cache
        .get(`${prefix}-a`)
        ?.status?.conditions?.some((c) => c.type === 'NetworkUnavailable' && c.status === 'False'),
    );
    cloud.calls.length = 0;
    await controller.reconcile();
    expect(cloud.callNames()).toEqual(['list-routes']);
  });

  it('takes over a NetworkUnavailable condition with the right status but another reason, as upstream does', async () => {
    const now = new Date();
    await core.patchNodeStatus(
      {
        name: `${prefix}-a`,
        body: {
          status: {
            conditions: [
              {
                type: 'NetworkUnavailable',
                status: 'False',
                reason: 'SomeCNIIsUp',
                message: 'set by a CNI',
                lastHeartbeatTime: now,
                lastTransitionTime: now,
              },
            ],
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    await eventually('informer sees the foreign reason', () =>
      harness.informers.nodes.cache
        .get(`${prefix}-a`)
        ?.status?.conditions?.some((c) => c.type === 'NetworkUnavailable' && c.reason === 'SomeCNIIsUp'),
    );
    await controller.reconcile();
    expect(await condition(`${prefix}-a`)).toMatchObject({ status: 'False', reason: 'RouteCreated' });
  });

  it('reports a failed creation as a FailedToCreateRoute Warning on the Node and marks it unavailable', async () => {
    await core.createNode({ body: { metadata: { name: `${prefix}-c` }, spec: { podCIDRs: ['10.244.3.0/24'] } } });
    await eventually('informer sees c', () => harness.informers.nodes.cache.get(`${prefix}-c`));
    cloud.errors.set('create-route', new Error('quota exceeded'));
    await controller.reconcile();
    expect(await condition(`${prefix}-c`)).toMatchObject({ status: 'True', reason: 'NoRouteCreated' });
    await eventually('event', async () => {
      const events = await core.listNamespacedEvent({
        namespace: 'default',
        fieldSelector: `involvedObject.name=${prefix}-c,reason=FailedToCreateRoute`,
      });
      return events.items[0]?.message?.includes('quota exceeded') ? true : undefined;
    });
    await core.deleteNode({ name: `${prefix}-c` });
  });
});
