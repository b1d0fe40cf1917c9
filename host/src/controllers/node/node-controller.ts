// cloud-node controller (upstream controllers/node/node_controller.go): initializes Nodes registered with the
// external-cloud-provider taint from the cloud's InstanceMetadata, keeps their addresses fresh, and keeps GA
// labels in step with beta ones. The cloud is asked about many nodes at once (a batched InstanceMetadata, ABI 1.5):
// a worker takes the uninitialized nodes waiting in the queue with the one it waited for, and the periodic refresh
// goes in batches; each node keeps its own retries, backoff, events and metrics.
import type { Registry } from 'prom-client';
import { INSTANCE_BATCH_SIZE, type NodeResult, type Provider } from '../../cloudprovider/index.ts';
import type { KubeClient } from '../../kube/client/client.ts';
import type { EventRecorder } from '../../kube/events/recorder.ts';
import { recordReason } from '../../kube/events/reasons.ts';
import type { Informer } from '../../kube/informer/informer.ts';
import { RateLimitingQueue } from '../../kube/workqueue/rate-limiting.ts';
import type { Logger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';
import { toABIInstanceNode } from '../convert.ts';
import { elapsed, runPeriodically, runWorkers } from '../framework/workers.ts';
import { patchNodeAddresses, patchNodeLabels, updateNode } from '../framework/node-updates.ts';
import type { WireNode } from '../framework/wire-objects.ts';
import { desiredNodeAddresses, nodeAddressesChanged } from './addresses.ts';
import { instanceMetadata, instanceMetadataOfNodes } from './cloud-instances.ts';
import { applyInitialization, hasCloudTaint, planInitialization } from './initialization.ts';
import { betaToGALabels } from './labels.ts';
import { nodeControllerMetrics } from './metrics.ts';
import type { InstanceMetadata } from '../../abi/index.ts';

export interface CloudNodeControllerOptions {
  client: KubeClient;
  nodes: Informer<WireNode>;
  provider: Provider;
  recorder: EventRecorder;
  logger: Logger;
  registry: Registry;
  /** --concurrent-node-syncs */
  workers: number;
  /** --concurrent-node-status-updates: workers of the periodic refresh (0 or absent: `workers`). */
  statusUpdateWorkers?: number;
  /** --node-status-update-frequency */
  statusUpdateFrequencyMs: number;
  /** The most nodes per batched InstanceMetadata call (default INSTANCE_BATCH_SIZE). */
  batchSize?: number;
}

export class CloudNodeController {
  readonly name = 'cloud-node';
  private readonly options: CloudNodeControllerOptions;
  private readonly log: Logger;
  /** The record of each initialized node, made on one line (syncNode): its caller is looked up once. */
  private readonly initializedLog: Logger;
  readonly queue: RateLimitingQueue<string>;
  private readonly metrics;
  /** Address updates started by initializations, not awaited by the worker (settled() waits for them). */
  private readonly inFlight = new Set<Promise<void>>();
  /** InstanceMetadata a worker fetched for the keys of its turn, each taken by that key's sync. */
  private readonly prefetched = new Map<string, NodeResult<InstanceMetadata>>();
  private readonly batchSize: number;
  /** The signal run() was given: a stop cancels the per-node calls a batch falls back to. */
  private stopSignal: AbortSignal | undefined;

  constructor(options: CloudNodeControllerOptions) {
    this.options = options;
    this.log = options.logger.child({ controller: 'cloud-node' });
    this.initializedLog = this.log.atOneSite?.() ?? this.log;
    // Upstream names this queue "Nodes".
    this.queue = new RateLimitingQueue<string>({ name: 'Nodes', registry: options.registry });
    this.metrics = nodeControllerMetrics(options.registry);
    this.batchSize = Math.max(1, options.batchSize ?? INSTANCE_BATCH_SIZE);
    options.nodes.addEventHandler({
      onAdd: (node) => this.enqueue(node),
      onUpdate: (_old, node) => this.enqueue(node),
    });
  }

  private enqueue(node: WireNode): void {
    const name = node.metadata?.name;
    if (name) this.queue.add(name);
  }

  /** Runs until `signal` aborts: the workers, and the periodic address refresh. */
  async run(signal: AbortSignal): Promise<void> {
    this.stopSignal = signal;
    const stop = () => this.queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    await Promise.all([
      runWorkers({
        queue: this.queue,
        workers: this.options.workers,
        sync: (k) => this.syncNode(k),
        logger: this.log,
        batchSize: this.batchSize,
        prepare: (keys) => this.prefetchMetadata(keys),
      }),
      runPeriodically(this.options.statusUpdateFrequencyMs, signal, () => this.updateNodeStatus(), this.log),
    ]);
    await this.settled();
  }

  /** The InstanceMetadata of the uninitialized nodes among `keys`, in one call, for their syncs to take. */
  async prefetchMetadata(keys: readonly string[]): Promise<void> {
    const tainted = keys
      .map((k) => this.options.nodes.cache.get(k))
      .filter((n): n is WireNode => n !== undefined && hasCloudTaint(n));
    // One node alone is asked about by its sync, as before batching.
    if (tainted.length < 2) return;
    const results = await instanceMetadataOfNodes(
      this.options.provider,
      tainted.map(toABIInstanceNode),
      this.stopSignal,
    );
    tainted.forEach((node, i) => this.prefetched.set(node.metadata?.name ?? '', results[i]!));
  }

  /** One node: initialize it if tainted, else only reconcile beta -> GA labels. */
  async syncNode(name: string): Promise<void> {
    const prefetched = this.prefetched.get(name);
    this.prefetched.delete(name);
    const cached = this.options.nodes.cache.get(name);
    if (!cached) return;
    if (!hasCloudTaint(cached)) {
      await this.reconcileLabels(cached);
      return;
    }
    // A node's failed answer in the batch fails its sync alone: requeued with backoff, as a failed single call.
    if (prefetched?.ok === false) throw prefetched.error;
    const meta = prefetched?.value ?? (await instanceMetadata(this.options.provider, toABIInstanceNode(cached)));
    // Throws (node stays tainted, requeued with backoff) on an empty providerID or an unknown provided-node-ip.
    const plan = planInitialization(cached, meta);
    const v2 = this.log.v(2);
    if (v2.enabled) {
      for (const [label, value] of Object.entries(plan.labels)) {
        v2.info('Adding node label from cloud provider', { node: name, label, value });
      }
    }
    for (const d of plan.droppedLabels) {
      this.log.warn('not setting an additional label the provider asked for', {
        node: name,
        label: d.key,
        reason: d.reason,
      });
    }
    const updated = await updateNode(
      this.options.client,
      name,
      (current) => (hasCloudTaint(current) ? applyInitialization(current, plan) : undefined),
      cached,
    );
    const created = Date.parse(updated.metadata?.creationTimestamp ?? '');
    if (!hasCloudTaint(updated) && Number.isFinite(created)) {
      this.metrics.taintRemovalDelay.observe((Date.now() - created) / 1000);
    }
    this.initializedLog.info('initialized node with cloud provider', {
      node: name,
      providerID: updated.spec?.providerID,
    });
    // Addresses right away, so users do not wait for the next periodic refresh. The worker does not wait for the
    // patch: the node is initialized once its taint is gone, and upstream only logs a failed address update too.
    // At a QPS limit this keeps the token bucket busy while the apiserver answers, instead of idle at its burst.
    this.track(
      this.updateNodeAddress(updated, meta)
        .then(() => {
          if (Number.isFinite(created)) this.metrics.initialSyncDelay.observe((Date.now() - created) / 1000);
        })
        .catch((err: unknown) => {
          this.log.error('failed to update node addresses', { node: name, error: errorMessage(err) });
        }),
    );
    // About the node as this sync found it (upstream records on its copy from before the update), so the
    // event's involvedObject.resourceVersion is the same as upstream's.
    recordReason(this.options.recorder, cached, 'Synced', 'Node synced successfully');
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Resolves when the address updates that initializations started have finished. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  private async reconcileLabels(node: WireNode): Promise<void> {
    const labels = betaToGALabels(node.metadata?.labels ?? {});
    if (Object.keys(labels).length === 0) return;
    await patchNodeLabels(this.options.client, node.metadata?.name ?? '', labels);
  }

  private async updateNodeAddress(node: WireNode, meta: InstanceMetadata): Promise<void> {
    if (hasCloudTaint(node)) return;
    let desired;
    try {
      desired = desiredNodeAddresses(node, meta.nodeAddresses);
    } catch (err) {
      this.log.error('not updating node addresses', { node: node.metadata?.name, error: errorMessage(err) });
      return;
    }
    if (!desired || !nodeAddressesChanged(node.status?.addresses ?? [], desired)) return;
    await patchNodeAddresses(this.options.client, node.metadata?.name ?? '', desired);
  }

  /**
   * The periodic refresh of every initialized node's addresses and labels (--node-status-update-frequency): the nodes
   * in batches, one InstanceMetadata call each, --concurrent-node-status-updates batches at once.
   */
  async updateNodeStatus(): Promise<void> {
    const started = performance.now();
    const nodes = this.options.nodes.cache.list().filter((n) => !hasCloudTaint(n));
    const workers = Math.max(1, this.options.statusUpdateWorkers || this.options.workers);
    // Batches no larger than a worker's share, so a few nodes still spread over every worker.
    const size = Math.min(this.batchSize, Math.max(1, Math.ceil(nodes.length / workers)));
    const batches: WireNode[][] = [];
    for (let i = 0; i < nodes.length; i += size) batches.push(nodes.slice(i, i + size));
    let next = 0;
    const worker = async () => {
      while (next < batches.length) await this.refreshBatch(batches[next++]!);
    };
    await Promise.all(Array.from({ length: workers }, worker));
    const v2 = this.log.v(2);
    if (v2.enabled) v2.info('Update nodes status took', { nodes: nodes.length, duration: elapsed(started) });
  }

  private async refreshBatch(nodes: readonly WireNode[]): Promise<void> {
    let results: NodeResult<InstanceMetadata>[];
    try {
      results = await instanceMetadataOfNodes(this.options.provider, nodes.map(toABIInstanceNode), this.stopSignal);
    } catch (err) {
      results = nodes.map(() => ({ ok: false, error: err instanceof Error ? err : new Error(String(err)) }));
    }
    for (const [i, node] of nodes.entries()) {
      const result = results[i]!;
      try {
        if (!result.ok) throw result.error;
        await this.updateNodeAddress(node, result.value);
        await this.reconcileLabels(node);
      } catch (err) {
        this.log.error('failed to refresh node status', { node: node.metadata?.name, error: errorMessage(err) });
      }
    }
  }

  healthy(): void {
    if (this.queue.shuttingDown()) throw new Error('cloud-node controller is stopped');
  }
}
