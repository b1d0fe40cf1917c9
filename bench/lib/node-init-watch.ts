// Watches Nodes (by label selector) from outside the CCM and timestamps, on this process's monotonic clock, when
// each one appeared (its ADDED event) and when it first showed up without a given taint: the taint-removal
// latency a user of the cluster would observe.
import { performance } from 'node:perf_hooks';
import type { KubeClient } from '../../host/src/kube/client/client.ts';
import type { KubeObject } from '../../host/src/kube/client/wire.ts';

interface NodeJson extends KubeObject {
  spec?: { taints?: { key: string }[] };
}

interface NodeList {
  metadata?: { resourceVersion?: string };
  items: NodeJson[];
}

export class NodeInitWatch {
  /** name -> ms (performance.now) the node was first seen. */
  readonly added = new Map<string, number>();
  /** name -> ms the node was first seen without the taint. */
  readonly cleared = new Map<string, number>();
  private readonly client: KubeClient;
  private readonly selector: string;
  private readonly taintKey: string;
  private readonly stopper = new AbortController();
  private resourceVersion = '';
  private running: Promise<void> | undefined;
  private failure: unknown;
  private wake: (() => void) | undefined;

  constructor(client: KubeClient, labelSelector: string, taintKey: string) {
    this.client = client;
    this.selector = labelSelector;
    this.taintKey = taintKey;
  }

  /** Lists, then watches in the background until stop(). */
  async start(): Promise<void> {
    const list = await this.client.request<NodeList>({
      path: '/api/v1/nodes',
      query: { labelSelector: this.selector },
    });
    for (const node of list.items) this.see(node);
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    this.running = this.loop().catch((err: unknown) => {
      if (!this.stopper.signal.aborted) this.failure = err;
      this.wake?.();
    });
  }

  /** Resolves once `count` nodes have been seen without the taint; rejects after `timeoutMs`. */
  async waitCleared(count: number, timeoutMs: number, progress?: (cleared: number) => void): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let reported = performance.now();
    while (this.cleared.size < count) {
      if (this.failure) throw this.failure;
      if (performance.now() > deadline) {
        throw new Error(`only ${this.cleared.size} of ${count} nodes lost the taint within ${timeoutMs / 1000} s`);
      }
      if (progress && performance.now() - reported > 10_000) {
        reported = performance.now();
        progress(this.cleared.size);
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 1_000);
      });
    }
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }

  private see(node: NodeJson): void {
    const name = node.metadata?.name;
    if (!name) return;
    const now = performance.now();
    if (!this.added.has(name)) this.added.set(name, now);
    const tainted = (node.spec?.taints ?? []).some((t) => t.key === this.taintKey);
    if (!tainted && !this.cleared.has(name)) {
      this.cleared.set(name, now);
      this.wake?.();
    }
  }

  // The apiserver ends a watch after a few minutes; carry on from the last resourceVersion.
  private async loop(): Promise<void> {
    const signal = this.stopper.signal;
    while (!signal.aborted) {
      const events = await this.client.watch(
        '/api/v1/nodes',
        { labelSelector: this.selector, resourceVersion: this.resourceVersion, allowWatchBookmarks: true },
        signal,
      );
      for await (const event of events) {
        if (event.type === 'ERROR') throw new Error(`node watch failed: ${JSON.stringify(event.object)}`);
        const rv = event.object.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        if (event.type === 'ADDED' || event.type === 'MODIFIED') this.see(event.object as NodeJson);
      }
    }
  }
}
