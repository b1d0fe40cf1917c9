// Work queue metrics with upstream's names, help and buckets (k8s.io/component-base workqueue provider), one
// series per queue `name`. Several queues share the metric objects of one Registry.
import { Gauge, type Registry } from 'prom-client';
import { exponentialBuckets } from '../../metrics/go-float.ts';
import { CounterVec, GaugeVec, HistogramVec } from '../../metrics/vec.ts';
import type { Clock } from '../clock.ts';
import { beta } from '../../metrics/stability.ts';

export interface QueueMetrics<T> {
  add(item: T): void;
  get(item: T): void;
  done(item: T): void;
  retry(): void;
  /** Stops reporting unfinished work for this queue. */
  close(): void;
}

const noopQueueMetrics: QueueMetrics<unknown> = {
  add: () => {},
  get: () => {},
  done: () => {},
  retry: () => {},
  close: () => {},
};

// Upstream: prometheus.ExponentialBuckets(10e-9, 10, 10), 10 ns .. 10 s, rounded as Go rounds them (9.999999999999999e-06).
const DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 10);

interface LiveQueue {
  name: string;
  processingSince(): Iterable<number>;
  clock: Clock;
}

interface Family {
  adds: CounterVec;
  depth: GaugeVec;
  latency: HistogramVec;
  workDuration: HistogramVec;
  retries: CounterVec;
  live: Set<LiveQueue>;
}

const families = new WeakMap<Registry, Family>();

function familyFor(registry: Registry): Family {
  const existing = families.get(registry);
  if (existing) return existing;
  const live = new Set<LiveQueue>();
  const labelNames = ['name'] as const;
  const registers = [registry];
  // Unfinished work is computed when scraped rather than by a 500 ms ticker as upstream does: same value, no timer.
  const perQueue = (pick: (seconds: number[]) => number) =>
    function collect(this: Gauge<'name'>): void {
      this.reset();
      const byName = new Map<string, number[]>();
      for (const q of live) {
        const now = q.clock.now();
        const seconds = byName.get(q.name) ?? [];
        for (const start of q.processingSince()) seconds.push((now - start) / 1000);
        byName.set(q.name, seconds);
      }
      for (const [name, seconds] of byName) this.set({ name }, pick(seconds));
    };
  const family: Family = {
    adds: new CounterVec({
      name: 'workqueue_adds_total',
      help: beta('Total number of adds handled by workqueue'),
      labelNames,
      registers,
    }),
    depth: new GaugeVec({ name: 'workqueue_depth', help: beta('Current depth of workqueue'), labelNames, registers }),
    latency: new HistogramVec({
      name: 'workqueue_queue_duration_seconds',
      help: beta('How long in seconds an item stays in workqueue before being requested.'),
      labelNames,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    workDuration: new HistogramVec({
      name: 'workqueue_work_duration_seconds',
      help: beta('How long in seconds processing an item from workqueue takes.'),
      labelNames,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    retries: new CounterVec({
      name: 'workqueue_retries_total',
      help: beta('Total number of retries handled by workqueue'),
      labelNames,
      registers,
    }),
    live,
  };
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: beta(
      "How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at ' +
        'which this increases.',
    ),
    labelNames,
    registers,
    collect: perQueue((s) => s.reduce((a, b) => a + b, 0)),
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: beta('How many seconds has the longest running processor for workqueue been running.'),
    labelNames,
    registers,
    collect: perQueue((s) => s.reduce((a, b) => Math.max(a, b), 0)),
  });
  families.set(registry, family);
  return family;
}

export function queueMetrics<T>(name: string, registry: Registry | undefined, clock: Clock): QueueMetrics<T> {
  if (!registry) return noopQueueMetrics;
  const f = familyFor(registry);
  const addTimes = new Map<T, number>();
  const processingStart = new Map<T, number>();
  const liveQueue: LiveQueue = { name, clock, processingSince: () => processingStart.values() };
  f.live.add(liveQueue);
  // Zero-valued series from the start, so dashboards see the queue before its first add (upstream creates the
  // histograms' series with the queue too).
  f.adds.withLabelValues(name).inc(0);
  f.latency.withLabelValues(name);
  f.workDuration.withLabelValues(name);
  f.retries.withLabelValues(name).inc(0);
  f.depth.withLabelValues(name).set(0);
  return {
    add(item) {
      f.adds.withLabelValues(name).inc();
      f.depth.withLabelValues(name).inc();
      if (!addTimes.has(item)) addTimes.set(item, clock.now());
    },
    get(item) {
      f.depth.withLabelValues(name).dec();
      const added = addTimes.get(item);
      if (added !== undefined) {
        f.latency.withLabelValues(name).observe((clock.now() - added) / 1000);
        addTimes.delete(item);
      }
      processingStart.set(item, clock.now());
    },
    done(item) {
      const started = processingStart.get(item);
      if (started !== undefined) {
        f.workDuration.withLabelValues(name).observe((clock.now() - started) / 1000);
        processingStart.delete(item);
      }
    },
    retry() {
      f.retries.withLabelValues(name).inc();
    },
    close() {
      f.live.delete(liveQueue);
    },
  };
}
