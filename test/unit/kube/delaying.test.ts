import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../support/fake-clock.ts';
import { DelayingQueue } from '../../../host/src/kube/workqueue/delaying.ts';

async function takeAll<T>(q: DelayingQueue<T>): Promise<T[]> {
  const out: T[] = [];
  while (q.len() > 0) {
    const r = await q.get();
    if (r.shutdown) break;
    out.push(r.item);
    q.done(r.item);
  }
  return out;
}

describe('DelayingQueue', () => {
  it('adds an item only once its delay has passed', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 50);
    expect(q.len()).toBe(0);
    expect(q.waitingCount()).toBe(1);
    clock.step(49);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    expect(q.waitingCount()).toBe(0);
    expect(await takeAll(q)).toEqual(['a']);
  });

  it('adds at once for a zero or negative delay', () => {
    const q = new DelayingQueue<string>({ clock: new FakeClock() });
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    expect(q.len()).toBe(2);
    expect(q.waitingCount()).toBe(0);
  });

  it('releases the earliest ready item first regardless of insertion order', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('late', 300);
    q.addAfter('early', 100);
    q.addAfter('middle', 200);
    clock.step(150);
    expect(await takeAll(q)).toEqual(['early']);
    clock.step(1000);
    expect(await takeAll(q)).toEqual(['middle', 'late']);
  });

  it('keeps insertion order for items due at the same instant', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<number>({ clock });
    for (let i = 0; i < 20; i++) q.addAfter(i, 10);
    clock.step(10);
    expect(await takeAll(q)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('deduplicates a waiting item, keeping the earlier ready time', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 1000);
    q.addAfter('a', 100); // earlier wins
    q.addAfter('a', 5000); // later is ignored
    expect(q.waitingCount()).toBe(1);
    clock.step(100);
    expect(await takeAll(q)).toEqual(['a']);
    clock.step(10_000);
    expect(q.len()).toBe(0);
    expect(clock.timerCount).toBe(0);
  });

  it('moving a waiting item earlier re-orders it among others', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    q.addAfter('b', 200);
    q.addAfter('c', 300);
    q.addAfter('c', 50);
    clock.step(100);
    expect(await takeAll(q)).toEqual(['c', 'a']);
  });

  it('a delayed item that is already queued is deduplicated when it becomes ready', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.add('a');
    q.addAfter('a', 10);
    clock.step(10);
    expect(q.len()).toBe(1);
    expect(await takeAll(q)).toEqual(['a']);
  });

  it('orders many random delays correctly (heap)', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<number>({ clock });
    const delays = Array.from({ length: 500 }, (_, i) => ((i * 7919) % 1000) + 1);
    delays.forEach((d, i) => q.addAfter(i, d));
    const released: number[] = [];
    for (let t = 0; t < 1001; t++) {
      clock.step(1);
      released.push(...(await takeAll(q)));
    }
    const expected = delays.map((d, i) => ({ d, i })).sort((x, y) => x.d - y.d || x.i - y.i);
    expect(released).toEqual(expected.map((e) => e.i));
  });

  it('drops waiting items and its timer on shutdown, and ignores addAfter afterwards', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    q.shutDown();
    q.addAfter('b', 10);
    clock.step(1000);
    expect(q.len()).toBe(0);
    expect(q.waitingCount()).toBe(0);
    expect(clock.timerCount).toBe(0);
  });

  it('counts every addAfter as a retry in workqueue_retries_total', async () => {
    const registry = new Registry();
    const q = new DelayingQueue<string>({ name: 'svc', registry, clock: new FakeClock() });
    q.addAfter('a', 10);
    q.addAfter('a', 0);
    q.add('b'); // not a retry
    const metric = await registry.getSingleMetric('workqueue_retries_total')?.get();
    expect(metric?.values).toEqual([{ value: 2, labels: { name: 'svc' } }]);
  });
});
