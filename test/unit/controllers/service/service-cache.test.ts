// The service controller's cache of synced Services and the node sync over it (upstream's serviceCache,
// nodeSyncService): informers reduced to their caches and handlers, a recording fake provider and event recorder.
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { WireNode, WireService } from '../../../../host/src/controllers/framework/wire-objects.ts';
import {
  ServiceController,
  type ServiceControllerOptions,
} from '../../../../host/src/controllers/service/service-controller.ts';
import { LOAD_BALANCER_CLEANUP_FINALIZER } from '../../../../host/src/controllers/service/rules.ts';
import type { EventHandlers } from '../../../../host/src/kube/informer/informer.ts';
import { silentLogger } from '../../../../host/src/log/logger.ts';
import { FakeProvider } from '../../../support/fake-provider.ts';

/** An informer reduced to its cache and its handlers (every handler hears every change). */
class FakeInformer<T extends WireNode | WireService> {
  readonly items = new Map<string, T>();
  private readonly handlers: EventHandlers<T>[] = [];
  readonly cache = {
    get: (key: string) => this.items.get(key),
    list: () => [...this.items.values()],
  };

  addEventHandler(handlers: EventHandlers<T>): () => void {
    this.handlers.push(handlers);
    for (const obj of this.items.values()) void handlers.onAdd?.(obj, true);
    return () => undefined;
  }

  set(key: string, obj: T): void {
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const h of this.handlers) void (old ? h.onUpdate?.(old, obj) : h.onAdd?.(obj, false));
  }

  /** Gone from the cluster: the handlers hear it (the controller has no delete handler for Services). */
  delete(key: string): void {
    const old = this.items.get(key)!;
    this.items.delete(key);
    for (const h of this.handlers) void h.onDelete?.(old);
  }
}

interface Recorded {
  name: string;
  type: string;
  reason: string;
  message: string;
}

const node = (name: string): WireNode => ({
  metadata: { name, uid: `uid-${name}` },
  spec: { providerID: `fake://${name}` },
  status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
});

const service = (name: string, extra: { deleting?: boolean } = {}): WireService => ({
  kind: 'Service',
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    finalizers: [LOAD_BALANCER_CLEANUP_FINALIZER],
    ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { type: 'LoadBalancer', ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }] },
});

const controllers: ServiceController[] = [];
afterEach(() => {
  for (const c of controllers.splice(0)) {
    c.queue.shutDown();
    c.nodeQueue.shutDown();
  }
});

function setup(...nodeNames: string[]) {
  const cloud = new FakeProvider();
  const services = new FakeInformer<WireService>();
  const nodes = new FakeInformer<WireNode>();
  for (const n of nodeNames) nodes.set(n, node(n));
  const events: Recorded[] = [];
  const apiserver = { down: false };
  const client = {
    patch: async () => {
      if (apiserver.down) throw new Error('apiserver unavailable');
    },
  };
  const controller = new ServiceController({
    client: client as unknown as ServiceControllerOptions['client'],
    services: services as unknown as ServiceControllerOptions['services'],
    nodes: nodes as unknown as ServiceControllerOptions['nodes'],
    balancer: cloud.loadBalancer()!,
    clusterName: 'kubernetes',
    recorder: {
      recordEvent: (obj: WireService, type: string, reason: string, message: string) =>
        events.push({ name: obj.metadata?.name ?? '', type, reason, message }),
    } as unknown as ServiceControllerOptions['recorder'],
    logger: silentLogger,
    registry: new Registry(),
    workers: 1,
    leaseFresh: () => true,
  });
  controllers.push(controller);
  const reasons = (name: string) => events.filter((e) => e.name === name).map((e) => e.reason);
  const updates = (name: string) =>
    cloud.calls
      .filter((c) => c.method === 'update' && (c.args[1] as { name: string }).name === name)
      .map((c) => (c.args[2] as { name: string }[]).map((n) => n.name));
  const addNode = async (name: string) => {
    nodes.set(name, node(name));
    await controller.nodeSync();
  };
  return { cloud, services, nodes, apiserver, controller, events, reasons, updates, addNode };
}

describe('service controller: the service cache and node sync over it (upstream)', () => {
  it('keeps following the nodes with the LB of a Service deleted without its finalizer, and cleans it up after a failed update', async () => {
    const { cloud, services, controller, events, reasons, updates, addNode } = setup('a');
    services.set('default/orphan', service('orphan'));
    await controller.syncService('default/orphan');
    expect(reasons('orphan')).toEqual(['EnsuringLoadBalancer', 'EnsuredLoadBalancer']);

    // The finalizer stripped by hand, then the Service deleted: no handler queues it, the cache keeps it.
    services.delete('default/orphan');
    await addNode('b');
    expect(updates('orphan')).toEqual([['a', 'b']]);
    expect(reasons('orphan').slice(2)).toEqual(['UpdatedLoadBalancer']);

    // The next update fails: a full sync is queued, which finds the Service gone and deletes its LB.
    cloud.errors.set('update', new Error('backend refused'));
    await addNode('c');
    expect(events.at(-1)).toEqual({
      name: 'orphan',
      type: 'Warning',
      reason: 'UpdateLoadBalancerFailed',
      message:
        'Error updating load balancer with new hosts [a b c] [node names limited, total number of nodes: 3], ' +
        'error: backend refused',
    });
    expect(controller.queue.len()).toBe(1);
    await controller.syncService('default/orphan');
    expect(reasons('orphan').slice(3)).toEqual([
      'UpdateLoadBalancerFailed',
      'DeletingLoadBalancer',
      'DeletedLoadBalancer',
    ]);
    expect(cloud.balancers.size).toBe(0);

    // Uncached with its LB: later node changes leave it alone.
    await addNode('d');
    expect(updates('orphan')).toHaveLength(2);
  });

  it('gives the LB of a Service being deleted the new node set while its deletion keeps failing', async () => {
    const { cloud, services, controller, reasons, updates, addNode } = setup('a');
    services.set('default/going', service('going'));
    await controller.syncService('default/going');
    cloud.errorsOnce = false;
    cloud.errors.set('delete', new Error('the cloud refuses'));
    services.set('default/going', service('going', { deleting: true }));
    await expect(controller.syncService('default/going')).rejects.toThrow('failed to delete load balancer');
    expect(reasons('going').slice(2)).toEqual(['DeletingLoadBalancer', 'SyncLoadBalancerFailed']);

    await addNode('b');
    expect(updates('going')).toEqual([['a', 'b']]);
    expect(reasons('going').at(-1)).toBe('UpdatedLoadBalancer');

    cloud.errors.delete('delete');
    await controller.syncService('default/going');
    expect(reasons('going').slice(-2)).toEqual(['DeletingLoadBalancer', 'DeletedLoadBalancer']);
    await addNode('c');
    expect(updates('going')).toHaveLength(1);
  });

  it('updates each changed LB once per node-set change; a failed update is left to the full sync it queues', async () => {
    const { cloud, services, controller, updates, addNode } = setup('a');
    services.set('default/web', service('web'));
    await controller.syncService('default/web');
    // A node sync with the set unchanged updates nothing.
    await controller.nodeSync();
    expect(updates('web')).toEqual([]);
    cloud.errors.set('update', new Error('busy'));
    await addNode('b');
    expect(updates('web')).toHaveLength(1);
    expect(controller.queue.len()).toBe(1);
    // The set it was to get is recorded as given: the next node sync does not retry it, the queued sync does.
    await controller.nodeSync();
    expect(updates('web')).toHaveLength(1);
    await addNode('c');
    expect(updates('web')).toEqual([
      ['a', 'b'],
      ['a', 'b', 'c'],
    ]);
  });

  it('gives a cached Service never given a node set the current one, as upstream compares it with an empty set', async () => {
    const { cloud, services, apiserver, controller, updates, addNode } = setup('a');
    // The ensure never reaches the cloud: the finalizer patch fails, so no node set is recorded.
    apiserver.down = true;
    const early = service('early');
    services.set('default/early', { ...early, metadata: { ...early.metadata, finalizers: [] } });
    await expect(controller.syncService('default/early')).rejects.toThrow('failed to add load balancer cleanup');
    expect(cloud.calls.filter((c) => c.method === 'create')).toEqual([]);
    await addNode('b');
    expect(updates('early')).toEqual([['a', 'b']]);
  });
});
