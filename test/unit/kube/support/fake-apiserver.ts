// An in-memory stand-in for one resource of the apiserver, behind the ListerWatcher seam: objects with
// resourceVersions, an event history that watches replay from a resourceVersion, compaction (410), and knobs to
// break, close or silence watches and to fail lists. Used to drive the informer through every failure path
// deterministically; the e2e tests cover the same paths against the real apiserver.
import { KubeApiError } from '../../../../host/src/kube/client/errors.ts';
import type { WatchEvent } from '../../../../host/src/kube/client/watch.ts';
import { type KubeObject, objectKey } from '../../../../host/src/kube/client/wire.ts';
import type { ListerWatcher, ListResult } from '../../../../host/src/kube/informer/list-watch.ts';

class Channel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;
  private ended = false;
  private error: unknown;
  closed = false;

  push(value: T): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w.resolve({ value, done: false });
    } else this.buffer.push(value);
  }

  end(): void {
    this.ended = true;
    this.flush();
  }

  fail(err: unknown): void {
    this.error = err;
    this.flush();
  }

  private flush(): void {
    if (!this.waiting) return;
    const w = this.waiting;
    this.waiting = undefined;
    if (this.error !== undefined) w.reject(this.error);
    else if (this.ended) w.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift() as T, done: false });
        if (this.error !== undefined) return Promise.reject(this.error);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
      },
      return: () => {
        this.closed = true;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

export interface FakeNode extends KubeObject {
  kind: 'Node';
  apiVersion: 'v1';
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string>; managedFields?: unknown[] };
  spec?: { providerID?: string };
}

export class FakeApiserver implements ListerWatcher {
  private rv = 100;
  private compactedRV = 0;
  private readonly objects = new Map<string, FakeNode>();
  private readonly history: { rv: number; event: WatchEvent }[] = [];
  private readonly watches = new Set<Channel<WatchEvent>>();
  readonly watchCalls: string[] = [];
  listCalls = 0;
  /** Lists fail while this is > 0 (decremented per failed list). */
  failLists = 0;
  /** The next watch call rejects with this (once). */
  failNextWatch: unknown;

  list(signal: AbortSignal): Promise<ListResult> {
    this.listCalls++;
    if (signal.aborted) return Promise.reject(new Error('aborted'));
    if (this.failLists > 0) {
      this.failLists--;
      return Promise.reject(new KubeApiError({ code: 503, reason: 'ServiceUnavailable', message: 'down' }));
    }
    const items = [...this.objects.values()].map((o) => structuredClone(o));
    return Promise.resolve({ items, resourceVersion: String(this.rv) });
  }

  watch(resourceVersion: string, signal: AbortSignal): Promise<AsyncIterable<WatchEvent>> {
    this.watchCalls.push(resourceVersion);
    if (this.failNextWatch !== undefined) {
      const err = this.failNextWatch;
      this.failNextWatch = undefined;
      return Promise.reject(err);
    }
    const from = Number(resourceVersion);
    if (from < this.compactedRV) {
      return Promise.reject(new KubeApiError({ code: 410, reason: 'Expired', message: 'too old resource version' }));
    }
    const channel = new Channel<WatchEvent>();
    for (const h of this.history) if (h.rv > from) channel.push(structuredClone(h.event));
    this.watches.add(channel);
    signal.addEventListener('abort', () => {
      this.watches.delete(channel);
      channel.fail(new DOMException('aborted', 'AbortError'));
    });
    return Promise.resolve(channel);
  }

  get activeWatches(): number {
    return [...this.watches].filter((c) => !c.closed).length;
  }

  upsert(name: string, labels: Record<string, string> = {}): FakeNode {
    const obj: FakeNode = {
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { name, resourceVersion: String(++this.rv), labels, managedFields: [{ manager: 'test' }] },
    };
    const type = this.objects.has(name) ? 'MODIFIED' : 'ADDED';
    this.objects.set(name, obj);
    this.record({ type, object: obj });
    return obj;
  }

  remove(name: string): void {
    const obj = this.objects.get(name);
    if (!obj) throw new Error(`no ${name}`);
    this.objects.delete(name);
    const final = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    this.record({ type: 'DELETED', object: final });
  }

  /** Like etcd compaction: history up to now is gone, so resuming from an older resourceVersion gets 410. */
  compact(): void {
    this.compactedRV = this.rv;
    this.history.length = 0;
  }

  /** Sends a raw event to every open watch (BOOKMARK, ERROR). */
  send(event: WatchEvent): void {
    for (const c of this.watches) c.push(event);
  }

  bookmark(): string {
    const rv = String(++this.rv);
    this.send({ type: 'BOOKMARK', object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: rv } } });
    return rv;
  }

  /** Every open watch fails like a reset connection. */
  breakWatches(err: unknown = new Error('read ECONNRESET')): void {
    for (const c of this.watches) c.fail(err);
    this.watches.clear();
  }

  /** Every open watch ends cleanly, as on the server's timeout. */
  closeWatches(): void {
    for (const c of this.watches) c.end();
    this.watches.clear();
  }

  keyOf(name: string): string {
    return objectKey({ metadata: { name } });
  }

  private record(event: WatchEvent): void {
    const rv = Number(event.object.metadata?.resourceVersion);
    this.history.push({ rv, event: structuredClone(event) });
    for (const c of this.watches) c.push(structuredClone(event));
  }
}
