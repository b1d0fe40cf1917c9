// The service controller against the real apiserver with a recording FakeProvider (upstream's fake cloud style).
import { CoreV1Api, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { ImplementedElsewhereError, RetryError } from '../../../host/src/cloudprovider/index.ts';
import { ServiceController } from '../../../host/src/controllers/service/service-controller.ts';
import { patchOptions } from '../../../host/src/kube/client/typed-api.ts';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { eventually, type Harness, startHarness } from '../../support/controller-harness.ts';
import { FakeProvider } from '../../support/fake-provider.ts';
import { adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';

const FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

describe('service controller', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  const namespace = uniqueName('svc');
  const prefix = uniqueName('lbn');
  const nodeNames = [`${prefix}-a`, `${prefix}-b`];
  const cloud = new FakeProvider();
  let fresh = true;
  let harness: Harness;
  let controller: ServiceController;

  const calls = (method: string, svc: string) =>
    cloud.calls.filter((c) => c.method === method && (c.args[1] as { name: string }).name === svc);
  const nodesOf = (call: { args: unknown[] }) =>
    (call.args[2] as { name: string }[])
      .map((n) => n.name)
      .filter((n) => n.startsWith(prefix))
      .sort();
  const events = async (name: string) =>
    (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items.map(
      (e) => e.reason,
    );

  async function createService(
    name: string,
    spec: Partial<V1Service['spec']> = {},
    annotations: Record<string, string> = {},
    finalizers: string[] = [],
  ) {
    return core.createNamespacedService({
      namespace,
      body: {
        metadata: { name, annotations, finalizers },
        spec: {
          type: 'LoadBalancer',
          ports: [{ name: 'http', port: 80, targetPort: 8080 as never, protocol: 'TCP' }],
          ...spec,
        },
      },
    });
  }

  /**
   * The positive sign that the controller had its chance at `name`: the informer delivered it, then a classless
   * marker Service created after it was ensured, and the queue is empty with nothing in progress.
   */
  async function settled(name: string | undefined, marker: string): Promise<void> {
    if (name) await eventually('informer has it', () => harness.informers.services.cache.get(`${namespace}/${name}`));
    await createService(marker);
    await eventually('marker ensured', () => calls('create', marker).length === 1);
    await eventually('queue idle', () => controller.queue.len() === 0 && controller.queue.processingCount() === 0);
  }

  beforeAll(async () => {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    for (const name of nodeNames) {
      await core.createNode({ body: { metadata: { name }, spec: { providerID: `fake://${name}` } } });
    }
    harness = await startHarness(info, 'service-controller');
    controller = new ServiceController({
      client: harness.client,
      services: harness.informers.services,
      nodes: harness.informers.nodes,
      balancer: cloud.loadBalancer()!,
      clusterName: 'kubernetes',
      recorder: harness.recorder,
      logger: silentLogger,
      registry: harness.registry,
      workers: 2,
      leaseFresh: () => fresh,
      // Upstream's 30 s, shortened so that resync-driven retries show within seconds.
      serviceSyncPeriodMs: 1_000,
    });
    await harness.run(controller);
  });

  afterAll(async () => {
    await harness?.stop();
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    for (const name of [...nodeNames, `${prefix}-c`, `${prefix}-d`])
      await core.deleteNode({ name }).catch(() => undefined);
  });

  beforeEach(() => {
    fresh = true;
  });

  it('adds the finalizer, ensures the LB with the node set, writes the ingress and the events', async () => {
    await createService('web');
    const svc = await eventually('ingress', async () => {
      const s = await core.readNamespacedService({ name: 'web', namespace });
      return s.status?.loadBalancer?.ingress?.length ? s : undefined;
    });
    expect(svc.metadata?.finalizers).toContain(FINALIZER);
    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: cloud.externalIP, ipMode: 'VIP' }]);
    const create = calls('create', 'web');
    expect(create).toHaveLength(1);
    expect(nodesOf(create[0]!)).toEqual(nodeNames);
    await eventually('events', async () => {
      const reasons = await events('web');
      return reasons.includes('EnsuringLoadBalancer') && reasons.includes('EnsuredLoadBalancer');
    });
  });

  it('updates only the backends when nodes come, go or are excluded', async () => {
    const before = calls('create', 'web').length;
    await core.createNode({ body: { metadata: { name: `${prefix}-c` }, spec: { providerID: `fake://${prefix}-c` } } });
    await eventually('update with 3 nodes', () => calls('update', 'web').some((c) => nodesOf(c).length === 3));
    await core
      .patchNode(
        {
          name: `${prefix}-c`,
          body: { metadata: { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } } },
        },
        { middleware: undefined } as never,
      )
      .catch(async () => {
        const n = await core.readNode({ name: `${prefix}-c` });
        n.metadata!.labels = {
          ...n.metadata?.labels,
          'node.kubernetes.io/exclude-from-external-load-balancers': 'true',
        };
        await core.replaceNode({ name: `${prefix}-c`, body: n });
      });
    await eventually('update without the excluded node', () => {
      const updates = calls('update', 'web');
      return updates.length >= 2 && nodesOf(updates.at(-1)!).join() === nodeNames.join();
    });
    expect(calls('create', 'web')).toHaveLength(before);
    await eventually('UpdatedLoadBalancer event', async () => (await events('web')).includes('UpdatedLoadBalancer'));
  });

  it('re-ensures on an annotation change, and ignores changes that do not matter', async () => {
    const before = calls('create', 'web').length;
    const svc = await core.readNamespacedService({ name: 'web', namespace });
    svc.metadata!.labels = { team: 'a' };
    await core.replaceNamespacedService({ name: 'web', namespace, body: svc });
    await eventually(
      'informer has the label',
      () => harness.informers.services.cache.get(`${namespace}/web`)?.metadata?.labels?.team === 'a',
    );
    await settled(undefined, 'web-label-marker');
    expect(calls('create', 'web')).toHaveLength(before);
    const again = await core.readNamespacedService({ name: 'web', namespace });
    again.metadata!.annotations = { 'service.beta.kubernetes.io/fake-option': 'x' };
    await core.replaceNamespacedService({ name: 'web', namespace, body: again });
    await eventually('re-ensure', () => calls('create', 'web').length === before + 1);
  });

  it('removes the LB, the finalizer and the ingress when the type changes away from LoadBalancer', async () => {
    await createService('typechange');
    await eventually('ensured', () => calls('create', 'typechange').length === 1);
    const svc = await core.readNamespacedService({ name: 'typechange', namespace });
    svc.spec = { ...svc.spec, type: 'ClusterIP' };
    delete svc.spec.externalTrafficPolicy;
    svc.spec.ports = svc.spec.ports?.map(({ nodePort: _drop, ...p }) => p);
    await core.replaceNamespacedService({ name: 'typechange', namespace, body: svc });
    const cleaned = await eventually('cleaned up', async () => {
      const s = await core.readNamespacedService({ name: 'typechange', namespace });
      return !s.metadata?.finalizers?.includes(FINALIZER) && !s.status?.loadBalancer?.ingress ? s : undefined;
    });
    expect(cleaned.spec?.type).toBe('ClusterIP');
    expect(calls('delete', 'typechange')).toHaveLength(1);
    await eventually('DeletedLoadBalancer event', async () =>
      (await events('typechange')).includes('DeletedLoadBalancer'),
    );
  });

  it('deletes the LB before the Service can go (the finalizer holds it)', async () => {
    await createService('bye');
    await eventually('ensured', () => calls('create', 'bye').length === 1);
    await core.deleteNamespacedService({ name: 'bye', namespace });
    await eventually('service gone', async () => {
      try {
        await core.readNamespacedService({ name: 'bye', namespace });
        return undefined;
      } catch {
        return true;
      }
    });
    expect(calls('delete', 'bye')).toHaveLength(1);
    expect(
      cloud.balancers.has(
        `${namespace}/bye/${calls('create', 'bye')[0]?.args[1] && (calls('create', 'bye')[0]!.args[1] as { uid: string }).uid}`,
      ),
    ).toBe(false);
  });

  it('retries a failing load balancer deletion at every Service resync, besides the backoff (upstream)', async () => {
    await createService('undeletable');
    await eventually('ensured', () => calls('create', 'undeletable').length === 1);
    cloud.errorsOnce = false;
    cloud.errors.set('delete', new Error('the cloud refuses'));
    try {
      await core.deleteNamespacedService({ name: 'undeletable', namespace });
      await eventually('first attempt', () => calls('delete', 'undeletable').length >= 1);
      const first = Date.now();
      // The queue's backoff alone would not retry before 5 s; the 1 s resync re-queues it every second, so two
      // retries within 4.5 s can only come from resyncs (the margin absorbs a loaded machine).
      await eventually('retried by resync', () => calls('delete', 'undeletable').length >= 3, 4_500);
      expect(Date.now() - first).toBeLessThan(4_500);
      // Worded as upstream's syncLoadBalancerIfNeeded wraps it.
      await eventually('SyncLoadBalancerFailed', async () => {
        const all = await core.listNamespacedEvent({
          namespace,
          fieldSelector: 'involvedObject.name=undeletable,reason=SyncLoadBalancerFailed',
        });
        return all.items[0]?.message;
      }).then((message) =>
        expect(message).toBe('Error syncing load balancer: failed to delete load balancer: the cloud refuses'),
      );
    } finally {
      cloud.errors.delete('delete');
      cloud.errorsOnce = true;
    }
    await eventually('cleaned up', () =>
      core.readNamespacedService({ name: 'undeletable', namespace }).then(
        () => undefined,
        () => true,
      ),
    );
  });

  it('keeps a Service deleted without its finalizer cached: its LB stays, follows the nodes, goes after a failed update (upstream)', async () => {
    await createService('stripped');
    await eventually('ensured', () => calls('create', 'stripped').length === 1);
    const uid = (calls('create', 'stripped')[0]!.args[1] as { uid: string }).uid;
    await core.patchNamespacedService(
      { name: 'stripped', namespace, body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      patchOptions('json'),
    );
    await core.deleteNamespacedService({ name: 'stripped', namespace });
    await eventually('gone from the cache', () => !harness.informers.services.cache.get(`${namespace}/stripped`));
    await settled(undefined, 'stripped-marker');
    expect(calls('delete', 'stripped')).toHaveLength(0);
    expect(cloud.balancers.has(`${namespace}/stripped/${uid}`)).toBe(true);
    expect(await events('stripped')).not.toContain('DeletingLoadBalancer');

    // Upstream's service cache keeps it: its load balancer follows node changes...
    const joined = `${prefix}-d`;
    await core.createNode({ body: { metadata: { name: joined }, spec: { providerID: `fake://${joined}` } } });
    await eventually('updated with the node that joined', () =>
      calls('update', 'stripped').some((c) => nodesOf(c).includes(joined)),
    );
    // ...and a failed update queues a sync, which finds the Service gone and deletes the load balancer.
    cloud.errorsOnce = false;
    cloud.errors.set('update', new Error('the cloud refuses'));
    try {
      await core.deleteNode({ name: joined });
      await eventually('deleted after the failed update', () => calls('delete', 'stripped').length === 1);
    } finally {
      cloud.errors.delete('update');
      cloud.errorsOnce = true;
    }
    expect(cloud.balancers.has(`${namespace}/stripped/${uid}`)).toBe(false);
    await eventually('DeletedLoadBalancer', async () => (await events('stripped')).includes('DeletedLoadBalancer'));
    expect(await events('stripped')).toEqual(
      expect.arrayContaining(['UpdatedLoadBalancer', 'UpdateLoadBalancerFailed', 'DeletingLoadBalancer']),
    );
  });

  it('leaves Services with a loadBalancerClass alone', async () => {
    await createService('classy', { loadBalancerClass: 'example.com/other' });
    await settled('classy', 'classy-marker');
    expect(calls('create', 'classy')).toHaveLength(0);
    const svc = await core.readNamespacedService({ name: 'classy', namespace });
    expect(svc.metadata?.finalizers ?? []).not.toContain(FINALIZER);
  });

  it('keeps the cleanup finalizer on a Service of another class until it is deleted (upstream)', async () => {
    await createService('classy-fin', { loadBalancerClass: 'example.com/nobody' }, {}, [FINALIZER]);
    await settled('classy-fin', 'classy-fin-marker');
    const kept = await core.readNamespacedService({ name: 'classy-fin', namespace });
    expect(kept.metadata?.finalizers).toContain(FINALIZER);
    expect(cloud.calls.filter((c) => (c.args[1] as { name?: string } | undefined)?.name === 'classy-fin')).toEqual([]);
    expect(await events('classy-fin')).toEqual([]);
    // Being deleted, it needs cleanup whatever its class: the finalizer goes and the Service with it.
    await core.deleteNamespacedService({ name: 'classy-fin', namespace });
    await eventually('service gone', () =>
      core.readNamespacedService({ name: 'classy-fin', namespace }).then(
        () => undefined,
        () => true,
      ),
    );
    expect(calls('get', 'classy-fin')).toHaveLength(1);
    await eventually('DeletedLoadBalancer', async () => (await events('classy-fin')).includes('DeletedLoadBalancer'));
  });

  it('writes no status when the provider answers ImplementedElsewhere', async () => {
    cloud.errors.set('create', new ImplementedElsewhereError('another controller'));
    await createService('elsewhere');
    await eventually('ensure attempted', () => calls('create', 'elsewhere').length === 1);
    await settled(undefined, 'elsewhere-marker');
    const svc = await core.readNamespacedService({ name: 'elsewhere', namespace });
    expect(svc.status?.loadBalancer?.ingress).toBeUndefined();
    expect(svc.metadata?.finalizers).toContain(FINALIZER);
  });

  it('honours a provider retry delay, and reports the failure', async () => {
    cloud.errors.set('create', new RetryError('busy', 1));
    await createService('retry');
    await eventually('first attempt', () => calls('create', 'retry').length === 1);
    const firstAt = Date.now();
    await eventually('retried', () => calls('create', 'retry').length === 2, 5_000);
    const waited = Date.now() - firstAt;
    expect(waited).toBeGreaterThanOrEqual(800);
    expect(waited).toBeLessThan(4_000);
    await eventually('SyncLoadBalancerFailed', async () => (await events('retry')).includes('SyncLoadBalancerFailed'));
  });

  it('starts no cloud mutation without a fresh lease', async () => {
    fresh = false;
    await createService('stale');
    // The positive sign that the controller synced it: the refusal, reported on the Service.
    const refusal = await eventually('SyncLoadBalancerFailed', async () => {
      const all = await core.listNamespacedEvent({
        namespace,
        fieldSelector: 'involvedObject.name=stale,reason=SyncLoadBalancerFailed',
      });
      return all.items[0]?.message;
    });
    expect(refusal).toBe('Error syncing load balancer: the leader lease is not fresh; not touching the cloud');
    expect(calls('create', 'stale')).toHaveLength(0);
    fresh = true;
  });
});
