// service controller (upstream controllers/service/controller.go): ensures a cloud load balancer for every
// Service of type LoadBalancer it serves, keeps its backends in step with the node set, and removes it (then the
// cleanup finalizer) when the Service goes away or stops wanting one.
import type { V1LoadBalancerStatus } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import {
  isImplementedElsewhere,
  type LoadBalancer,
  type LoadBalancerStatus,
  prepareNodes,
} from '../../cloudprovider/index.ts';
import type { KubeClient } from '../../kube/client/client.ts';
import { isNotFound } from '../../kube/client/errors.ts';
import { objectKey, type Wire } from '../../kube/client/wire.ts';
import type { EventRecorder } from '../../kube/events/recorder.ts';
import { recordReason } from '../../kube/events/reasons.ts';
import type { Informer } from '../../kube/informer/informer.ts';
import { ItemExponentialFailureRateLimiter } from '../../kube/workqueue/rate-limiters.ts';
import { RateLimitingQueue } from '../../kube/workqueue/rate-limiting.ts';
import type { Logger, VerboseLogger } from '../../log/logger.ts';
import { type Node, type Service, type KeptList, keptList } from '../../abi/index.ts';
import { errorMessage } from '../../util/error-message.ts';
import { toABIService } from '../convert.ts';
import type { WireNode, WireService } from '../framework/wire-objects.ts';
import { elapsed, runWorkers } from '../framework/workers.ts';
import { EMPTY_NODE_SET_IDENTITY, LoadBalancerNodeSet } from './load-balancer-nodes.ts';
import { serviceControllerMetrics } from './metrics.ts';
import { ServiceCache } from './service-cache.ts';
import { step, SyncStepError } from './sync-step.ts';
import {
  hasCleanupFinalizer,
  loadBalancerStatusEqual,
  loggableNodeNames,
  needsCleanup,
  needsUpdate,
  nodeChangeAffectsLoadBalancers,
  type ServedClasses,
  UPSTREAM_SERVED,
  wantsLoadBalancer,
} from './rules.ts';
import { addFinalizer, patchLoadBalancerStatus, removeFinalizer, wireLoadBalancerStatus } from './service-updates.ts';

export interface ServiceControllerOptions {
  client: KubeClient;
  services: Informer<WireService>;
  nodes: Informer<WireNode>;
  balancer: LoadBalancer;
  clusterName: string;
  recorder: EventRecorder;
  logger: Logger;
  registry: Registry;
  /** --concurrent-service-syncs */
  workers: number;
  /** The loadBalancerClass values it serves (upstream's by default: Services without a class only). */
  served?: ServedClasses;
  /** False when the lease may be stale: no cloud mutation may start then. */
  leaseFresh: () => boolean;
  /** The Service handler's resync period (default upstream's 30 s; tests shorten it). */
  serviceSyncPeriodMs?: number;
}

const NODE_SYNC_KEY = 'node-sync';

/** Upstream's serviceSyncPeriod: the Service handler's resync, which re-queues Services that still need cleanup. */
const SERVICE_SYNC_PERIOD_MS = 30_000;
/** Upstream's nodeSyncPeriod: the Node handler's resync (a resync is no node change, so it syncs nothing). */
const NODE_SYNC_PERIOD_MS = 100_000;

class LeaseNotFreshError extends Error {
  override name = 'LeaseNotFreshError';
}

export class ServiceController {
  readonly name = 'service';
  readonly queue: RateLimitingQueue<string>;
  readonly nodeQueue: RateLimitingQueue<string>;
  private readonly options: ServiceControllerOptions;
  private readonly log: Logger;
  /** Upstream's V(2) decisions (what is ensured, deleted, patched) and V(4) timings. */
  private readonly v2: VerboseLogger;
  private readonly v4: VerboseLogger;
  private readonly metrics;
  private readonly served: ServedClasses;
  /** Upstream's service cache: the Services synced and not yet cleaned up, which node syncs walk. */
  private readonly cache = new ServiceCache();
  private readonly nodeSet: LoadBalancerNodeSet;

  constructor(options: ServiceControllerOptions) {
    this.options = options;
    this.log = options.logger.child({ controller: 'service' });
    this.v2 = this.log.v(2);
    this.v4 = this.log.v(4);
    this.metrics = serviceControllerMetrics(options.registry);
    this.served = options.served ?? UPSTREAM_SERVED;
    this.queue = new RateLimitingQueue<string>({
      name: 'service',
      registry: options.registry,
      rateLimiter: new ItemExponentialFailureRateLimiter(5_000, 300_000),
    });
    this.nodeQueue = new RateLimitingQueue<string>({ name: 'node', registry: options.registry });
    const balancer = options.balancer;
    this.nodeSet = new LoadBalancerNodeSet(options.nodes, { prepare: (nodes) => prepareNodes(balancer, nodes) });
    options.services.addEventHandler(
      {
        onAdd: (svc) => {
          if (wantsLoadBalancer(svc, this.served) || needsCleanup(svc)) {
            this.queue.add(objectKey(svc));
          }
        },
        onUpdate: (old, svc) => {
          if (needsUpdate(old, svc, this.served) || needsCleanup(svc)) {
            this.queue.add(objectKey(svc));
          }
        },
        // No delete handler, as upstream: a Service goes only after its finalizer is removed, which the update path
        // does once the load balancer is gone. One whose finalizer was removed by hand leaves its load balancer.
      },
      options.serviceSyncPeriodMs ?? SERVICE_SYNC_PERIOD_MS,
    );
    options.nodes.addEventHandler(
      {
        // The informer's initial list too, as upstream: one node sync at start-up, over whatever the service
        // workers have cached by then.
        onAdd: () => this.nodeQueue.add(NODE_SYNC_KEY),
        onUpdate: (old, node) => {
          if (nodeChangeAffectsLoadBalancers(old, node)) this.nodeQueue.add(NODE_SYNC_KEY);
        },
        onDelete: () => this.nodeQueue.add(NODE_SYNC_KEY),
      },
      NODE_SYNC_PERIOD_MS,
    );
  }

  async run(signal: AbortSignal): Promise<void> {
    signal.addEventListener(
      'abort',
      () => {
        this.queue.shutDown();
        this.nodeQueue.shutDown();
        this.nodeSet.detach();
      },
      { once: true },
    );
    // No periodic node sync: upstream has none (its Node handler's resync changes nothing); node events and full
    // syncs of Services keep the load balancers' node sets.
    await Promise.all([
      runWorkers({
        queue: this.queue,
        workers: this.options.workers,
        sync: (k) => this.syncService(k),
        logger: this.log,
      }),
      runWorkers({ queue: this.nodeQueue, workers: 1, sync: () => this.nodeSync(), logger: this.log }),
    ]);
  }

  private requireFreshLease(): void {
    if (!this.options.leaseFresh())
      throw new LeaseNotFreshError('the leader lease is not fresh; not touching the cloud');
  }

  /** One Service: ensure, or clean up. */
  async syncService(key: string): Promise<void> {
    const started = performance.now();
    try {
      await this.syncServiceKey(key);
    } finally {
      if (this.v4.enabled) this.v4.info('Finished syncing service', { service: key, duration: elapsed(started) });
    }
  }

  private async syncServiceKey(key: string): Promise<void> {
    const svc = this.options.services.cache.get(key);
    const previous = this.cache.get(key)?.service;
    if (!svc) {
      // Gone from the cluster while its key was queued (a retry, a failed node sync of a Service deleted without
      // its finalizer, or an update just before the deletion). With the finalizer, its load balancer was removed
      // (and the Service uncached) before the Service could go. Still cached means it went without the finalizer:
      // delete the load balancer from the version cached, as upstream's processServiceDeletion does. A failure
      // keeps it cached for the retry.
      if (previous) {
        this.v2.info('Service has been deleted. Attempting to cleanup load balancer resources', { service: key });
        await this.deleteStaleLoadBalancer(previous);
      }
      this.cache.delete(key);
      return;
    }
    if (previous && previous.metadata?.uid !== svc.metadata?.uid) {
      // Deleted and re-created under the same name: the old load balancer goes first.
      await this.deleteStaleLoadBalancer(previous);
    }
    this.cache.set(key, svc);
    try {
      // Only a successful deletion of the load balancer uncaches the Service (upstream).
      if (await this.syncLoadBalancerIfNeeded(svc)) this.cache.delete(key);
    } catch (err) {
      const message = errorMessage(err);
      recordReason(this.options.recorder, svc, 'SyncLoadBalancerFailed', `Error syncing load balancer: ${message}`);
      throw err;
    }
  }

  /** Resolves true when the load balancer was deleted. */
  private async syncLoadBalancerIfNeeded(svc: WireService): Promise<boolean> {
    const previousStatus = svc.status?.loadBalancer;
    const abiService = toABIService(svc);
    const cluster = this.options.clusterName;
    if (!wantsLoadBalancer(svc, this.served) || needsCleanup(svc)) {
      this.v2.info('Deleting existing load balancer for service', { service: objectKey(svc) });
      await this.deleteLoadBalancer(svc, abiService);
      await step('failed to update load balancer status', this.writeStatus(svc, previousStatus, { ingress: [] }));
      return true;
    }
    this.requireFreshLease();
    this.v2.info('Ensuring load balancer for service', { service: objectKey(svc) });
    recordReason(this.options.recorder, svc, 'EnsuringLoadBalancer', 'Ensuring load balancer');
    // The finalizer goes on before the first cloud call, so a load balancer can never outlive its Service.
    if (!hasCleanupFinalizer(svc)) {
      this.v2.info('Adding finalizer to service', { service: objectKey(svc) });
      await step('failed to add load balancer cleanup finalizer', addFinalizer(this.options.client, svc));
    }
    const nodes = this.nodeSet.nodes();
    if (nodes.length === 0) {
      this.warnNoNodes(svc);
    }
    this.cache.recordNodes(objectKey(svc), this.nodeSet.identity());
    let status: LoadBalancerStatus;
    try {
      this.metrics.loadBalancerSync.inc();
      status = await this.options.balancer.ensureLoadBalancer(cluster, abiService, nodes);
    } catch (err) {
      if (isImplementedElsewhere(err)) {
        this.v4.info('LoadBalancer for service implemented by a different controller, Ignoring error', {
          service: objectKey(svc),
        });
        return false;
      }
      throw new Error(`failed to ensure load balancer: ${errorMessage(err)}`, { cause: err });
    }
    recordReason(this.options.recorder, svc, 'EnsuredLoadBalancer', 'Ensured load balancer');
    await step('failed to update load balancer status', this.writeStatus(svc, previousStatus, status));
    return false;
  }

  /** The delete half of upstream's syncLoadBalancerIfNeeded; its errors are worded and wrapped as upstream's. */
  private async deleteLoadBalancer(svc: WireService, abiService: Service): Promise<void> {
    const cluster = this.options.clusterName;
    const { exists } = await step(
      'failed to check if load balancer exists before cleanup',
      this.options.balancer.getLoadBalancer(cluster, abiService),
    );
    if (exists) {
      this.requireFreshLease();
      recordReason(this.options.recorder, svc, 'DeletingLoadBalancer', 'Deleting load balancer');
      try {
        await this.options.balancer.ensureLoadBalancerDeleted(cluster, abiService);
      } catch (err) {
        // Upstream ignores ImplementedElsewhere here too, and goes on to remove the finalizer.
        if (!isImplementedElsewhere(err)) throw new SyncStepError('failed to delete load balancer', err);
      }
    }
    if (hasCleanupFinalizer(svc)) {
      this.v2.info('Removing finalizer from service', { service: objectKey(svc) });
      await step(
        'failed to remove load balancer cleanup finalizer',
        this.ignoreNotFound(removeFinalizer(this.options.client, svc)),
      );
    }
    recordReason(this.options.recorder, svc, 'DeletedLoadBalancer', 'Deleted load balancer');
  }

  private async writeStatus(
    svc: WireService,
    previous: Wire<V1LoadBalancerStatus> | undefined,
    next: LoadBalancerStatus,
  ): Promise<void> {
    const wire = wireLoadBalancerStatus(next);
    if (loadBalancerStatusEqual(previous, wire)) return;
    this.v2.info('Patching status for service', { service: objectKey(svc) });
    await this.ignoreNotFound(patchLoadBalancerStatus(this.options.client, svc, wire));
  }

  private async ignoreNotFound<T>(p: Promise<T>): Promise<T | undefined> {
    try {
      return await p;
    } catch (err) {
      // The Service can vanish right after its finalizer is removed.
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async deleteStaleLoadBalancer(old: WireService): Promise<void> {
    if (!wantsLoadBalancer(old, this.served)) return;
    this.requireFreshLease();
    recordReason(this.options.recorder, old, 'DeletingLoadBalancer', 'Deleting load balancer');
    try {
      await this.options.balancer.ensureLoadBalancerDeleted(this.options.clusterName, toABIService(old));
    } catch (err) {
      recordReason(
        this.options.recorder,
        old,
        'DeleteLoadBalancerFailed',
        `Error deleting load balancer: ${errorMessage(err)}`,
      );
      throw err;
    }
    recordReason(this.options.recorder, old, 'DeletedLoadBalancer', 'Deleted load balancer');
  }

  /**
   * Upstream's syncNodes: walks the service cache (not the Services that exist now) and gives every cached load
   * balancer whose node set changed the current one, Services being deleted and Services deleted without their
   * finalizer included.
   */
  async nodeSync(): Promise<void> {
    const started = performance.now();
    this.v2.info('Syncing backends for all LB services.');
    const { failed, of } = await this.updateChangedNodeSets();
    this.v2.info('Successfully updated load balancers to direct traffic to the updated set of nodes', {
      updated: of - failed,
      services: of,
    });
    this.metrics.nodeSyncLatency.observe((performance.now() - started) / 1000);
    if (this.v4.enabled) this.v4.info('Finished syncNodes', { duration: elapsed(started) });
  }

  /** Upstream's updateLoadBalancerHosts over the cache; resolves with how many of how many cached Services failed. */
  private async updateChangedNodeSets(): Promise<{ failed: number; of: number }> {
    const cached = this.cache.snapshot();
    // Upstream's nodeSyncService filters: the cached version wants a load balancer, and its node set changed (one
    // never given a set compares as empty).
    const wanting = cached.filter((e) => wantsLoadBalancer(e.service, this.served));
    // The set's identity hashes every node changed since it was last asked for; with no load balancer to compare it
    // with (a cluster without any, or a node burst before the first) that is work for nothing, on every node event.
    if (wanting.length === 0) return { failed: 0, of: cached.length };
    const setKey = this.nodeSet.identity();
    const changed = wanting.filter((e) => (e.nodes ?? EMPTY_NODE_SET_IDENTITY) !== setKey);
    // Taken with the identity, before any await: the nodes given are the set recorded as given.
    const abiNodes = changed.length > 0 ? this.nodeSet.nodes() : keptList<Node>([]);
    let next = 0;
    let failed = 0;
    const worker = async (): Promise<void> => {
      while (next < changed.length) {
        const { key, service } = changed[next++]!;
        // A full sync may have given it the current set meanwhile, or deleted its load balancer.
        const entry = this.cache.get(key);
        if (!entry || (entry.nodes ?? EMPTY_NODE_SET_IDENTITY) === setKey) continue;
        // Recorded before the update, as upstream: a failure is retried by the full sync it queues, not by the
        // next node sync.
        this.cache.recordNodes(key, setKey);
        try {
          await this.updateLoadBalancerHosts(service, abiNodes);
        } catch (err) {
          failed++;
          this.metrics.nodeSyncErrors.inc();
          this.log.error('failed to update load balancer hosts; queueing a full sync', {
            service: key,
            error: errorMessage(err),
          });
          this.queue.add(key);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.options.workers) }, worker));
    return { failed, of: cached.length };
  }

  private async updateLoadBalancerHosts(svc: WireService, nodes: KeptList<Node>): Promise<void> {
    this.requireFreshLease();
    const started = performance.now();
    const abiService = toABIService(svc);
    if (this.v2.enabled) {
      this.v2.info('Updating backends for load balancer', {
        service: objectKey(svc),
        nodeCount: nodes.length,
        nodes: loggableNodeNames(nodes.map((n) => n.name)),
      });
    }
    try {
      this.metrics.loadBalancerSync.inc();
      await this.options.balancer.updateLoadBalancer(this.options.clusterName, abiService, nodes);
    } catch (err) {
      if (isImplementedElsewhere(err)) return;
      // Only an error if the load balancer still exists.
      const { exists } = await this.options.balancer
        .getLoadBalancer(this.options.clusterName, abiService)
        .catch(() => ({ exists: true }));
      if (!exists) return;
      // Worded as upstream's Eventf with %v of a []string: [a b c].
      const names = loggableNodeNames(nodes.map((n) => n.name)).join(' ');
      recordReason(
        this.options.recorder,
        svc,
        'UpdateLoadBalancerFailed',
        `Error updating load balancer with new hosts [${names}] [node names limited, total number of nodes: ${nodes.length}], error: ${errorMessage(err)}`,
      );
      throw err;
    } finally {
      this.metrics.updateHostLatency.observe((performance.now() - started) / 1000);
      if (this.v4.enabled) {
        this.v4.info('Finished updating load balancer hosts', { service: objectKey(svc), duration: elapsed(started) });
      }
    }
    if (nodes.length === 0) {
      this.warnNoNodes(svc);
    } else {
      recordReason(this.options.recorder, svc, 'UpdatedLoadBalancer', 'Updated load balancer with new hosts');
    }
  }

  private warnNoNodes(svc: WireService): void {
    recordReason(
      this.options.recorder,
      svc,
      'UnAvailableLoadBalancer',
      'There are no available nodes for LoadBalancer',
    );
  }

  healthy(): void {
    if (this.queue.shuttingDown()) throw new Error('service controller is stopped');
  }
}
