import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../support/fake-clock.ts';
import { Queue } from '../../../host/src/kube/workqueue/queue.ts';

async function take<T>(q: Queue<T>): Promise<T> {
  const r = await q.get();
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.item;
}

describe('Queue', () => {
  it('hands items out first in, first out', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.add('c');
    expect(q.len()).toBe(3);
    expect([await take(q), await take(q), await take(q)]).toEqual(['a', 'b', 'c']);
    expect(q.len()).toBe(0);
  });

  it('deduplicates an item added several times before it is taken', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await take(q)).toBe('a');
    expect(await take(q)).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('never hands an item being processed to a second worker; re-adding it queues it for after done', async () => {
    const q = new Queue<string>();
    q.add('a');
    const first = await take(q);
    q.add('a'); // changed again while a worker holds it
    expect(q.len()).toBe(0); // not available to another worker
    let second: string | undefined;
    void q.get().then((r) => (second = r.item));
    await flushMicrotasks();
    expect(second).toBeUndefined();
    q.done(first);
    await flushMicrotasks();
    expect(second).toBe('a');
  });

  it('re-adding an item several times while it is processed processes it exactly once more', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    q.add('a');
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    await take(q);
    q.done('a');
    expect(q.len()).toBe(0);
    expect(q.processingCount()).toBe(0);
  });

  it('wakes a waiting worker when an item arrives, one worker per item', async () => {
    const q = new Queue<number>();
    const got: number[] = [];
    const workers = [q.get(), q.get(), q.get()].map((p) => p.then((r) => r.item !== undefined && got.push(r.item)));
    q.add(1);
    q.add(2);
    await flushMicrotasks();
    expect(got.sort()).toEqual([1, 2]);
    q.shutDown();
    await Promise.all(workers);
    expect(got).toHaveLength(2);
  });

  it('done for an item that is not processing changes nothing', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect(await take(q)).toBe('a');
  });

  it('shutDown: new adds are ignored, queued items still come out, then get reports shutdown', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.shutDown();
    q.add('b');
    expect(q.shuttingDown()).toBe(true);
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
    expect(await q.get()).toEqual({ item: undefined, shutdown: true });
  });

  it('shutDown releases workers blocked in get', async () => {
    const q = new Queue<string>();
    const waiting = [q.get(), q.get()];
    q.shutDown();
    expect(await Promise.all(waiting)).toEqual([
      { item: undefined, shutdown: true },
      { item: undefined, shutdown: true },
    ]);
  });

  it('an item re-added before shutdown is still handed out after its done', async () => {
    const q = new Queue<string>();
    q.add('a');
    await take(q);
    q.add('a');
    q.shutDown();
    q.done('a');
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
    q.done('a');
    expect((await q.get()).shutdown).toBe(true);
  });

  it('shutDownWithDrain waits until every handed-out item is done', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    const a = await take(q);
    const b = await take(q);
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await flushMicrotasks();
    expect(drained).toBe(false);
    q.add('c'); // ignored while shutting down
    q.done(a);
    await flushMicrotasks();
    expect(drained).toBe(false);
    q.done(b);
    await drain;
    expect(drained).toBe(true);
    expect(q.len()).toBe(0);
  });

  it('shutDownWithDrain also waits for items a worker takes after it was called', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    const a = await take(q);
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    q.done(a);
    await flushMicrotasks();
    // 'b' was queued before the shutdown: a worker still gets it, and the drain waits for it.
    const b = await take(q);
    expect(b).toBe('b');
    await flushMicrotasks();
    expect(drained).toBe(false);
    q.done(b);
    await drain;
    expect(drained).toBe(true);
  });

  it('shutDownWithDrain resolves at once when nothing is processing', async () => {
    const q = new Queue<string>();
    await q.shutDownWithDrain();
    expect((await q.get()).shutdown).toBe(true);
  });

  it('keeps FIFO order across many adds and takes (internal compaction)', async () => {
    const q = new Queue<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      q.add(i);
      if (i % 3 === 0) {
        const n = await take(q);
        out.push(n);
        q.done(n);
      }
    }
    while (q.len() > 0) {
      const n = await take(q);
      out.push(n);
      q.done(n);
    }
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});

describe('Queue metrics', () => {
  async function values(registry: Registry, metric: string): Promise<Record<string, number>> {
    const m = registry.getSingleMetric(metric);
    if (!m) throw new Error(`${metric} not registered`);
    const got = await m.get();
    const named = got.values as { value: number; labels: Record<string, unknown>; metricName?: string }[];
    return Object.fromEntries(named.map((v) => [`${v.metricName ?? metric}{${String(v.labels.name ?? '')}}`, v.value]));
  }

  it('reports adds, depth, queue and work durations, labelled with the queue name', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const q = new Queue<string>({ name: 'Nodes', registry, clock });
    q.add('a');
    q.add('a'); // deduplicated: not an add
    q.add('b');
    expect(await values(registry, 'workqueue_adds_total')).toEqual({ 'workqueue_adds_total{Nodes}': 2 });
    expect(await values(registry, 'workqueue_depth')).toEqual({ 'workqueue_depth{Nodes}': 2 });
    clock.step(1500);
    const a = await take(q);
    expect(await values(registry, 'workqueue_depth')).toEqual({ 'workqueue_depth{Nodes}': 1 });
    clock.step(250);
    const latency = await values(registry, 'workqueue_queue_duration_seconds');
    expect(latency['workqueue_queue_duration_seconds_sum{Nodes}']).toBeCloseTo(1.5);
    expect(latency['workqueue_queue_duration_seconds_count{Nodes}']).toBe(1);
    expect(await values(registry, 'workqueue_unfinished_work_seconds')).toEqual({
      'workqueue_unfinished_work_seconds{Nodes}': 0.25,
    });
    q.done(a);
    const work = await values(registry, 'workqueue_work_duration_seconds');
    expect(work['workqueue_work_duration_seconds_sum{Nodes}']).toBeCloseTo(0.25);
    expect(await values(registry, 'workqueue_unfinished_work_seconds')).toEqual({
      'workqueue_unfinished_work_seconds{Nodes}': 0,
    });
  });

  it('reports the longest running processor and the sum of unfinished work across workers', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const q = new Queue<string>({ name: 'service', registry, clock });
    q.add('a');
    await take(q);
    clock.step(3000);
    q.add('b');
    await take(q);
    clock.step(1000);
    expect(await values(registry, 'workqueue_longest_running_processor_seconds')).toEqual({
      'workqueue_longest_running_processor_seconds{service}': 4,
    });
    expect(await values(registry, 'workqueue_unfinished_work_seconds')).toEqual({
      'workqueue_unfinished_work_seconds{service}': 5,
    });
  });

  it('lets several queues share one registry, each under its own name', async () => {
    const registry = new Registry();
    const q1 = new Queue<string>({ name: 'one', registry });
    const q2 = new Queue<string>({ name: 'two', registry });
    q1.add('x');
    q2.add('x');
    q2.add('y');
    expect(await values(registry, 'workqueue_adds_total')).toEqual({
      'workqueue_adds_total{one}': 1,
      'workqueue_adds_total{two}': 2,
    });
  });
});
