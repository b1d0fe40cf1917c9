// How long the event loop could not run anything: garbage collection, a long synchronous task, or the whole process
// stopped (SIGSTOP, a paused VM, a starved container). Everything on the main thread waits that long, among it the
// lease renewals, which is why a renewal that comes late says, in its log line, how long the loop stalled meanwhile.
//
// One timer per registry, every SAMPLE_MS, records in a perf_hooks histogram how late it runs. Two views read it:
// - wasm_ccm_event_loop_stall_seconds: the longest delay of each second, kept for a minute, so a scrape (however
//   often, and however many scrapers) sees the longest stall of the last minute;
// - prom-client's nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds, same names and meaning (the delays
//   since the previous scrape), in place of prom-client's own collector.
// prom-client samples on a 10 ms timer of its own: that timer wakes an idle process 100 times a second, ~4 ms of CPU
// per second on its own (more than the rest of an idle CCM), and during a burst a wake-up for each gap between
// requests. A delay here is the lateness beyond the sampling interval (prom-client's values include its 10 ms).
import { type RecordableHistogram, createHistogram } from 'node:perf_hooks';
import { Gauge, type Registry, collectDefaultMetrics } from 'prom-client';
import { alpha } from './stability.ts';

const SECOND_MS = 1_000;
const WINDOW_SECONDS = 60;
/** The sampling timer's period: a stall shorter than this may go unseen. */
export const SAMPLE_MS = 100;
// prom-client's own event-loop histogram cannot be left out of collectDefaultMetrics: its timer is set to fire once
// in 24 days instead (its gauges are replaced below; its nodejs_eventloop_lag_seconds, measured at each scrape with
// a setImmediate, stays).
const PROM_CLIENT_PRECISION_MS = 2 ** 31 - 1;

/** prom-client's histogram-fed event-loop gauges: name, help, and the statistic (ns) each reads. */
const LAG_GAUGES: readonly [string, string, (h: RecordableHistogram) => number][] = [
  ['nodejs_eventloop_lag_min_seconds', 'The minimum recorded event loop delay.', (h) => late(h.min)],
  ['nodejs_eventloop_lag_max_seconds', 'The maximum recorded event loop delay.', (h) => late(h.max)],
  ['nodejs_eventloop_lag_mean_seconds', 'The mean of the recorded event loop delays.', (h) => late(h.mean)],
  ['nodejs_eventloop_lag_stddev_seconds', 'The standard deviation of the recorded event loop delays.', (h) => h.stddev],
  [
    'nodejs_eventloop_lag_p50_seconds',
    'The 50th percentile of the recorded event loop delays.',
    (h) => late(h.percentile(50)),
  ],
  [
    'nodejs_eventloop_lag_p90_seconds',
    'The 90th percentile of the recorded event loop delays.',
    (h) => late(h.percentile(90)),
  ],
  [
    'nodejs_eventloop_lag_p99_seconds',
    'The 99th percentile of the recorded event loop delays.',
    (h) => late(h.percentile(99)),
  ],
];

// The histogram's values are the times between timer callbacks (ns): the sampling interval plus the delay.
function late(intervalNs: number): number {
  return Math.max(0, intervalNs - SAMPLE_MS * 1e6);
}

class EventLoopDelayMonitor {
  /** Times between the sampling timer's callbacks (ns) in the current second. */
  readonly #current = createHistogram();
  /** The samples since the last scrape of the lag gauges, up to the last full second. */
  readonly #sinceScrape = createHistogram();
  /** The longest delay (ms) of each of the last WINDOW_SECONDS seconds, oldest first. */
  readonly #seconds: number[] = [];
  readonly #timer: NodeJS.Timeout;
  #secondStartedAt = performance.now();

  constructor() {
    this.#current.recordDelta();
    this.#timer = setInterval(() => this.#sample(), SAMPLE_MS);
    this.#timer.unref();
  }

  /** The longest stall (ms) within the last minute. */
  longestMs(): number {
    return Math.max(this.#currentMs(), ...this.#seconds);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Hands `read` the samples of the whole seconds since the last call (the lag gauges' scrape), then drops them. */
  takeSinceScrape(read: (h: RecordableHistogram) => void): void {
    read(this.#sinceScrape);
    this.#sinceScrape.reset();
  }

  #sample(): void {
    this.#current.recordDelta();
    const now = performance.now();
    if (now - this.#secondStartedAt < SECOND_MS) return;
    this.#secondStartedAt = now;
    this.#seconds.push(this.#currentMs());
    if (this.#seconds.length > WINDOW_SECONDS) this.#seconds.shift();
    this.#sinceScrape.add(this.#current);
    this.#current.reset();
    // A reset forgets the previous callback's time: this starts the next interval.
    this.#current.recordDelta();
  }

  #currentMs(): number {
    return this.#current.count === 0 ? 0 : late(this.#current.max) / 1e6;
  }
}

const monitors = new WeakMap<Registry, EventLoopDelayMonitor>();

/**
 * The process's monitor for `registry`, exported there as wasm_ccm_event_loop_stall_seconds (one per registry: a
 * second call returns the first).
 */
export function eventLoopStall(registry: Registry): EventLoopDelayMonitor {
  let monitor = monitors.get(registry);
  if (monitor === undefined) {
    const created = new EventLoopDelayMonitor();
    new Gauge({
      name: 'wasm_ccm_event_loop_stall_seconds',
      help: alpha(
        'The longest time within the last 60 s that the event loop could not run (garbage collection, synchronous ' +
          'work, or the process stopped); lease renewals, probes and watches wait that long.',
      ),
      registers: [registry],
      collect() {
        this.set(created.longestMs() / 1000);
      },
    });
    monitors.set(registry, created);
    monitor = created;
  }
  return monitor;
}

/**
 * prom-client's default metrics (process_* and nodejs_*) on `registry`, their event-loop delays read from
 * eventLoopStall's histogram. Returns that monitor.
 */
export function nodeRuntimeMetrics(registry: Registry): EventLoopDelayMonitor {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: PROM_CLIENT_PRECISION_MS });
  for (const [name] of LAG_GAUGES) registry.removeSingleMetric(name);
  const monitor = eventLoopStall(registry);
  const gauges: Gauge[] = [];
  const readAll = (h: RecordableHistogram): void =>
    LAG_GAUGES.forEach(([, , stat], i) => gauges[i]?.set(h.count === 0 ? 0 : stat(h) / 1e9));
  for (const [name, help] of LAG_GAUGES) {
    // The first gauge's collect sets them all from one read of the samples, as prom-client's collector does.
    const collect = gauges.length === 0 ? () => monitor.takeSinceScrape(readAll) : undefined;
    gauges.push(new Gauge({ name, help, registers: [registry], ...(collect ? { collect } : {}) }));
  }
  return monitor;
}
