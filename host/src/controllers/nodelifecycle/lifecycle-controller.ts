// cloud-node-lifecycle controller (upstream controllers/nodelifecycle): every --node-monitor-period, looks at every
// Node; a Ready node loses the shutdown taint; a node that is not Ready is deleted when its instance is gone
// from the cloud, and gets the shutdown taint when its instance is shut down. The NotReady nodes of a pass are asked
// about together, both questions in one call (instanceStatusBatch, ABI 1.6; else a batched InstanceExists and then
// InstanceShutdown for those that exist), each node's answers handled as upstream handles its two single calls.
import { INSTANCE_STATUS_BATCH_SIZE, type InstanceStatus, type Provider } from '../../cloudprovider/index.ts';
import type { KubeClient } from '../../kube/client/client.ts';
import { isNotFound } from '../../kube/client/errors.ts';
import type { EventRecorder } from '../../kube/events/recorder.ts';
import { recordReason } from '../../kube/events/reasons.ts';
import type { Informer } from '../../kube/informer/informer.ts';
import type { Logger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';
import { toABIInstanceNode } from '../convert.ts';
import { deleteNode, updateNode } from '../framework/node-updates.ts';
import type { WireNode } from '../framework/wire-objects.ts';
import { runPeriodically } from '../framework/workers.ts';
import { instanceStatusOfNodes } from '../node/cloud-instances.ts';
import { TAINT_NODE_SHUTDOWN } from '../node/well-known.ts';

export interface CloudNodeLifecycleControllerOptions {
  client: KubeClient;
  nodes: Informer<WireNode>;
  provider: Provider;
  recorder: EventRecorder;
  logger: Logger;
  /** --node-monitor-period */
  monitorPeriodMs: number;
  /** The most nodes per batched call (default INSTANCE_STATUS_BATCH_SIZE). */
  batchSize?: number;
}

const SHUTDOWN_TAINT = { key: TAINT_NODE_SHUTDOWN, effect: 'NoSchedule' };

function isReady(node: WireNode): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function hasShutdownTaint(node: WireNode): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === TAINT_NODE_SHUTDOWN);
}

export class CloudNodeLifecycleController {
  readonly name = 'cloud-node-lifecycle';
  private readonly options: CloudNodeLifecycleControllerOptions;
  private readonly log: Logger;
  private lastRun = 0;
  /** The signal run() was given: a stop cancels the per-node calls a batch falls back to. */
  private stopSignal: AbortSignal | undefined;

  constructor(options: CloudNodeLifecycleControllerOptions) {
    this.options = options;
    this.log = options.logger.child({ controller: 'cloud-node-lifecycle' });
  }

  async run(signal: AbortSignal): Promise<void> {
    this.stopSignal = signal;
    await runPeriodically(this.options.monitorPeriodMs, signal, () => this.monitorNodes(), this.log);
  }

  /** One pass over every node (no exclusions, as upstream). */
  async monitorNodes(): Promise<void> {
    const notReady: WireNode[] = [];
    for (const node of this.options.nodes.cache.list()) {
      if (!isReady(node)) {
        notReady.push(node);
        continue;
      }
      try {
        if (hasShutdownTaint(node)) await this.setShutdownTaint(node.metadata?.name ?? '', false);
      } catch (err) {
        this.log.error('node lifecycle check failed', { node: node.metadata?.name, error: errorMessage(err) });
      }
    }
    const size = Math.max(1, this.options.batchSize ?? INSTANCE_STATUS_BATCH_SIZE);
    for (let i = 0; i < notReady.length && this.stopSignal?.aborted !== true; i += size) {
      await this.checkNotReady(notReady.slice(i, i + size));
    }
    this.lastRun = Date.now();
  }

  /** NotReady nodes: deleted when their instance is gone, tainted when it is shut down. */
  private async checkNotReady(nodes: readonly WireNode[]): Promise<void> {
    const status = await instanceStatusOfNodes(this.options.provider, nodes.map(toABIInstanceNode), this.stopSignal);
    // A stop (lost leadership) during the call: no node is deleted or tainted on its answers.
    for (const [i, node] of nodes.entries()) {
      if (this.stopSignal?.aborted === true) return;
      await this.handleStatus(node, status[i]!);
    }
  }

  private async handleStatus(node: WireNode, { exists, shutdown }: InstanceStatus): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (!exists.ok) {
      this.log.error('error checking if node exists', { node: name, error: errorMessage(exists.error) });
      return;
    }
    if (!exists.value) {
      await this.deleteGoneNode(node, name);
      return;
    }
    if (!shutdown.ok) {
      this.log.error('error checking if node is shutdown', { node: name, error: errorMessage(shutdown.error) });
      return;
    }
    if (!shutdown.value || hasShutdownTaint(node)) return;
    try {
      await this.setShutdownTaint(name, true);
    } catch (err) {
      this.log.error('node lifecycle check failed', { node: name, error: errorMessage(err) });
    }
  }

  private async deleteGoneNode(node: WireNode, name: string): Promise<void> {
    // V(2) as upstream: the DeletingNode Event below is logged at 0.
    this.log.v(2).info('deleting node since it is no longer present in cloud provider', { node: name });
    recordReason(
      this.options.recorder,
      node,
      'DeletingNode',
      `Deleting node ${name} because it does not exist in the cloud provider`,
    );
    try {
      await deleteNode(this.options.client, name);
    } catch (err) {
      if (isNotFound(err)) return;
      this.log.error('unable to delete node', { node: name, error: errorMessage(err) });
      recordReason(
        this.options.recorder,
        node,
        'DeletingNodeFailed',
        `Error deleting node ${name}: ${errorMessage(err)}`,
      );
    }
  }

  private async setShutdownTaint(name: string, present: boolean): Promise<void> {
    try {
      await updateNode(this.options.client, name, (current) => {
        const taints = current.spec?.taints ?? [];
        const has = taints.some((t) => t.key === TAINT_NODE_SHUTDOWN);
        if (has === present) return undefined;
        const next = present
          ? [...taints, { ...SHUTDOWN_TAINT, timeAdded: new Date().toISOString() }]
          : taints.filter((t) => t.key !== TAINT_NODE_SHUTDOWN);
        return { ...current, spec: { ...current.spec, taints: next } };
      });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** Unhealthy when no pass has completed for three periods (the loop is stuck). */
  healthy(): void {
    const stale = this.lastRun !== 0 && Date.now() - this.lastRun > 3 * this.options.monitorPeriodMs + 30_000;
    if (stale) throw new Error(`no node lifecycle pass for ${Math.round((Date.now() - this.lastRun) / 1000)} s`);
  }
}
