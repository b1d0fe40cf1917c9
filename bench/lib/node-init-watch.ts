// Watches Nodes (by label selector) from outside the CCM and timestamps, on this process's monotonic clock, when
// each one appeared (its ADDED event) and when it first showed up without a given taint: the taint-removal
// latency a user of the cluster would observe.
import type { KubeClient } from '../../host/src/kube/client/client.ts';
import type { KubeObject } from '../../host/src/kube/client/wire.ts';
import { ObjectWatch } from './object-watch.ts';

interface NodeJson extends KubeObject {
  spec?: { taints?: { key: string }[] };
}

export class NodeInitWatch {
  /** name -> ms (performance.now) the node was first seen. */
  readonly added = new Map<string, number>();
  /** name -> ms the node was first seen without the taint. */
  readonly cleared = new Map<string, number>();
  private readonly watch: ObjectWatch<NodeJson>;

  constructor(client: KubeClient, labelSelector: string, taintKey: string) {
    this.watch = new ObjectWatch<NodeJson>(client, {
      path: '/api/v1/nodes',
      query: { labelSelector },
      see: (node, at) => {
        const name = node.metadata?.name;
        if (!name) return;
        if (!this.added.has(name)) this.added.set(name, at);
        const tainted = (node.spec?.taints ?? []).some((t) => t.key === taintKey);
        if (!tainted && !this.cleared.has(name)) this.cleared.set(name, at);
      },
    });
  }

  /** Lists, then watches in the background until stop(). */
  start(): Promise<void> {
    return this.watch.start();
  }

  /** Resolves once `count` nodes have been seen without the taint; rejects after `timeoutMs`. */
  waitCleared(count: number, timeoutMs: number, progress?: (cleared: number) => void): Promise<void> {
    return this.watch.until(
      () => this.cleared.size >= count,
      timeoutMs,
      () => `only ${this.cleared.size} of ${count} nodes lost the taint`,
      progress && (() => progress(this.cleared.size)),
    );
  }

  stop(): Promise<void> {
    return this.watch.stop();
  }
}
