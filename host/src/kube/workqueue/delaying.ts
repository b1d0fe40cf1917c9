// client-go's DelayingQueue: addAfter puts an item on the queue once its delay has passed. Waiting items live in a
// heap keyed by ready time, and a single timer is armed for the earliest one. Scheduling an item that is already
// waiting keeps the earlier of the two ready times, so repeated requeues never push work further out.
import type { Timer } from '../clock.ts';
import { WaitingHeap, type WaitingEntry } from './heap.ts';
import { Queue, type QueueInterface, type QueueOptions } from './queue.ts';

export interface DelayingQueueInterface<T> extends QueueInterface<T> {
  addAfter(item: T, delayMs: number): void;
}

export class DelayingQueue<T> extends Queue<T> implements DelayingQueueInterface<T> {
  private readonly heap = new WaitingHeap<T>();
  private readonly waiting = new Map<T, WaitingEntry<T>>();
  private seq = 0;
  private timer: Timer | undefined;
  private timerAt = Infinity;

  constructor(options: QueueOptions = {}) {
    super(options);
  }

  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    // Upstream counts every delayed add as a retry (workqueue_retries_total), including zero delays.
    this.metrics.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waiting.get(item);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.heap.decreased(existing);
      }
    } else {
      const entry: WaitingEntry<T> = { item, readyAt, seq: this.seq++, index: -1 };
      this.waiting.set(item, entry);
      this.heap.push(entry);
    }
    this.arm();
  }

  /** Items waiting for their delay to pass (not yet on the queue). */
  waitingCount(): number {
    return this.heap.size;
  }

  override shutDown(): void {
    super.shutDown();
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
    this.heap.clear();
    this.waiting.clear();
  }

  private arm(): void {
    const next = this.heap.peek();
    if (!next || next.readyAt >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = next.readyAt;
    this.timer = this.clock.setTimer(next.readyAt - this.clock.now(), () => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    for (let next = this.heap.peek(); next && next.readyAt <= now; next = this.heap.peek()) {
      this.heap.pop();
      this.waiting.delete(next.item);
      this.add(next.item);
    }
    this.arm();
  }
}
