// The basic work queue of client-go's util/workqueue: a FIFO with three promises controllers rely on.
//  - Deduplication: an item added several times before a worker takes it is processed once.
//  - Exclusivity: an item being processed is never handed to a second worker at the same time.
//  - No lost updates: an item added while it is processed is queued again when `done` is called for it.
// Items are compared with SameValueZero (Set semantics), so controllers use string keys such as "namespace/name".
import type { Registry } from 'prom-client';
import { type Clock, realClock } from '../clock.ts';
import { type QueueMetrics, queueMetrics } from './metrics.ts';

export interface QueueOptions {
  /** The `name` label of the workqueue_* metrics (upstream uses e.g. "Nodes", "service", "node"). */
  name?: string;
  /** Where the metrics go; no metrics without one. */
  registry?: Registry;
  clock?: Clock;
}

export type GetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

export interface QueueInterface<T> {
  add(item: T): void;
  /** The next item, waiting if there is none; `shutdown: true` once the queue is shut down and empty. */
  get(): Promise<GetResult<T>>;
  /** The next item if one is waiting, else undefined, without waiting (a worker taking several at once). */
  tryGet(): T | undefined;
  /** Marks `item` as processed; required after every successful `get` and every item `tryGet` returned. */
  done(item: T): void;
  len(): number;
  /** Ignores new adds; items already queued are still handed out, then `get` reports shutdown. */
  shutDown(): void;
  /** Like shutDown, then resolves once every item queued or handed out has been marked done. */
  shutDownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
}

export class Queue<T> implements QueueInterface<T> {
  protected readonly clock: Clock;
  protected readonly metrics: QueueMetrics<T>;
  // A ring-free FIFO: an array with a moving head, compacted when the dead prefix dominates.
  private items: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly getters: ((result: GetResult<T>) => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private isShuttingDown = false;

  constructor(options: QueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.metrics = queueMetrics<T>(options.name ?? '', options.registry, this.clock);
  }

  add(item: T): void {
    if (this.isShuttingDown) return;
    if (this.dirty.has(item)) return;
    this.metrics.add(item);
    this.dirty.add(item);
    // Re-added while a worker holds it: it goes back on the queue when that worker calls done.
    if (this.processing.has(item)) return;
    this.items.push(item);
    this.dispatch();
  }

  get(): Promise<GetResult<T>> {
    const item = this.take();
    if (item.found) return Promise.resolve({ item: item.value, shutdown: false });
    if (this.isShuttingDown) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  tryGet(): T | undefined {
    const item = this.take();
    return item.found ? item.value : undefined;
  }

  done(item: T): void {
    this.metrics.done(item);
    if (!this.processing.delete(item)) return;
    if (this.dirty.has(item)) {
      this.items.push(item);
      this.dispatch();
    } else {
      this.settleDrainIfIdle();
    }
  }

  len(): number {
    return this.items.length - this.head;
  }

  shutDown(): void {
    this.isShuttingDown = true;
    this.metrics.close();
    // Waiting getters exist only while the queue is empty, so each of them is told to stop.
    for (const resolve of this.getters.splice(0)) resolve({ item: undefined, shutdown: true });
    this.settleDrainIfIdle();
  }

  shutDownWithDrain(): Promise<void> {
    const drained = new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    this.shutDown();
    return drained;
  }

  shuttingDown(): boolean {
    return this.isShuttingDown;
  }

  /** Items handed out and not yet done (for tests and diagnostics). */
  processingCount(): number {
    return this.processing.size;
  }

  private dispatch(): void {
    while (this.getters.length > 0) {
      const item = this.take();
      if (!item.found) return;
      const resolve = this.getters.shift();
      resolve?.({ item: item.value, shutdown: false });
    }
  }

  private take(): { found: true; value: T } | { found: false } {
    if (this.head >= this.items.length) return { found: false };
    const value = this.items[this.head] as T;
    this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.metrics.get(value);
    this.processing.add(value);
    this.dirty.delete(value);
    return { found: true, value };
  }

  // Drained = every item that was queued when the shutdown began has been handed out and marked done. Like
  // upstream, this needs running workers: with items still queued and nobody calling get, it never settles.
  private settleDrainIfIdle(): void {
    if (this.processing.size > 0 || this.len() > 0) return;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
