// Lists, then watches, one kind of object from outside the CCM, handing each version it sees to `see` with the time
// it arrived on this process's monotonic clock: what the benchmarks time from (a taint gone, an ingress written, an
// Event recorded) without polling, which would round every time up to its period.
import { performance } from 'node:perf_hooks';
import type { KubeClient } from '../../host/src/kube/client/client.ts';
import type { Query } from '../../host/src/kube/client/request-options.ts';
import type { KubeObject } from '../../host/src/kube/client/wire.ts';

export interface ObjectWatchOptions<T extends KubeObject> {
  /** The collection, e.g. `/api/v1/nodes`. */
  path: string;
  /** Selectors for the list and the watch. */
  query?: Query;
  /** Each object as listed or as an ADDED or MODIFIED event carries it, and when it arrived (performance.now). */
  see(object: T, at: number): void;
}

interface ObjectList<T> {
  metadata?: { resourceVersion?: string };
  items: T[];
}

export class ObjectWatch<T extends KubeObject> {
  private readonly client: KubeClient;
  private readonly options: ObjectWatchOptions<T>;
  private readonly stopper = new AbortController();
  private resourceVersion = '';
  private running: Promise<void> | undefined;
  private failure: unknown;
  private wake: (() => void) | undefined;

  constructor(client: KubeClient, options: ObjectWatchOptions<T>) {
    this.client = client;
    this.options = options;
  }

  /** Lists, then watches in the background until stop(). */
  async start(): Promise<void> {
    const list = await this.client.request<ObjectList<T>>({ path: this.options.path, query: this.options.query ?? {} });
    const at = performance.now();
    for (const object of list.items) this.options.see(object, at);
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    this.running = this.loop().catch((err: unknown) => {
      if (!this.stopper.signal.aborted) this.failure = err;
      this.wake?.();
    });
  }

  /**
   * Resolves once `done()` holds, checked after every object seen and at least once a second (for conditions on the
   * time, such as a settle period); rejects with `describe()` after `timeoutMs`, or with the watch's failure.
   */
  async until(done: () => boolean, timeoutMs: number, describe: () => string, progress?: () => void): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let reported = performance.now();
    while (!done()) {
      if (this.failure) throw this.failure;
      if (performance.now() > deadline) throw new Error(`${describe()} within ${timeoutMs / 1000} s`);
      if (progress && performance.now() - reported > 10_000) {
        reported = performance.now();
        progress();
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

  // The apiserver ends a watch after a few minutes; carry on from the last resourceVersion.
  private async loop(): Promise<void> {
    const signal = this.stopper.signal;
    while (!signal.aborted) {
      const events = await this.client.watch(
        this.options.path,
        { ...this.options.query, resourceVersion: this.resourceVersion, allowWatchBookmarks: true },
        signal,
      );
      for await (const event of events) {
        if (event.type === 'ERROR')
          throw new Error(`watch of ${this.options.path} failed: ${JSON.stringify(event.object)}`);
        const rv = event.object.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        if (event.type === 'ADDED' || event.type === 'MODIFIED') {
          this.options.see(event.object as T, performance.now());
          this.wake?.();
        }
      }
    }
  }
}
