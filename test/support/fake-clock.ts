// A Clock for tests: time only moves when the test says so, and due timers fire in time order.
import type { Clock, Timer } from '../../host/src/kube/clock.ts';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const entry: Pending = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.pending.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  /** Timers not yet fired or cancelled. */
  get timerCount(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, each at its own instant, synchronously. */
  step(ms: number): void {
    const target = this.current + ms;
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      this.current = next.at;
      next.fn();
    }
    this.current = target;
  }

  /**
   * Like step, but lets promise continuations run after every timer, so async loops driven by timers
   * (leader election, informer backoff) make progress the way they would in real time.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await flushMicrotasks();
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      this.current = next.at;
      next.fn();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /**
   * The process stops for `ms` (a long GC, SIGSTOP, a paused VM): time jumps at once, then every timer that fell due
   * meanwhile fires late, in the order they were due, with promise continuations run after each, as Node runs them
   * once the event loop is back. Whatever the first one's continuation does happens before the later ones fire.
   */
  async freeze(ms: number): Promise<void> {
    const target = this.current + ms;
    await flushMicrotasks();
    this.current = target;
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      next.fn();
      await flushMicrotasks();
    }
  }

  private nextDue(limit: number): Pending | undefined {
    this.pending = this.pending.filter((p) => !p.cancelled);
    let best: Pending | undefined;
    for (const p of this.pending) {
      if (p.at > limit) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    }
    if (best) best.cancelled = true;
    return best;
  }
}

/** Lets queued promise continuations (several hops deep) run before returning. */
export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
