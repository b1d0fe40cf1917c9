// How long the event loop could not run anything: garbage collection, a long synchronous task, or the whole process
// stopped (SIGSTOP, a paused VM, a starved container). Everything on the main thread waits that long, among it the
// lease renewals, which is why a renewal that comes late says, in its log line, how long the loop stalled meanwhile.
// perf_hooks' monitorEventLoopDelay samples how late its own timer runs; the longest delay of each second is kept for
// a minute, so a scrape (however often, and however many scrapers) sees the longest stall of the last minute.
// prom-client's nodejs_eventloop_lag_max_seconds measures the same thing but restarts at every scrape.
import { type ELDHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';
import { alpha } from './stability.ts';

const SECOND_MS = 1_000;
const WINDOW_SECONDS = 60;
// monitorEventLoopDelay's timer: a stall shorter than this is not seen.
const RESOLUTION_MS = 20;

class EventLoopStallMonitor {
  readonly #delays: ELDHistogram;
  /** The longest delay (ms) of each of the last WINDOW_SECONDS seconds, oldest first. */
  readonly #seconds: number[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.#delays = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.#delays.enable();
    this.#timer = setInterval(() => this.#roll(), SECOND_MS);
    this.#timer.unref();
  }

  /** The longest stall (ms) within the last minute. */
  longestMs(): number {
    return Math.max(this.#currentMs(), ...this.#seconds);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#delays.disable();
  }

  #roll(): void {
    this.#seconds.push(this.#currentMs());
    if (this.#seconds.length > WINDOW_SECONDS) this.#seconds.shift();
    this.#delays.reset();
  }

  // The histogram's max is in nanoseconds, and includes the resolution itself (a timer due every RESOLUTION_MS).
  #currentMs(): number {
    return this.#delays.count === 0 ? 0 : Math.max(0, this.#delays.max / 1e6 - RESOLUTION_MS);
  }
}

const monitors = new WeakMap<Registry, EventLoopStallMonitor>();

/**
 * The process's monitor, exported on `registry` as wasm_ccm_event_loop_stall_seconds (one per registry: a second
 * call returns the first).
 */
export function eventLoopStall(registry: Registry): EventLoopStallMonitor {
  let monitor = monitors.get(registry);
  if (monitor === undefined) {
    const created = new EventLoopStallMonitor();
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
