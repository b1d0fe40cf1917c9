// Gives the memory of a past burst back to the system once a plugin's instance set has shrunk after it.
//
// V8 (13.x, Node 24) keeps the pages its main-thread heap freed in a page pool, resident, for the heap to grow into
// again; only a memory-reducing GC empties that pool, and V8's memory reducer never runs one in a CCM that keeps
// allocating (watch events, syncs: it traces "high alloc" and waits). A burst of LoadBalancer syncs grows the main heap
// for a while, and what it freed then stayed resident for good: at steady state, with the same heap committed, many
// more 256 KiB V8 pages are mapped after a burst than without one (bench/upstream/rss-phases.ts --dump-smaps shows them). The
// instance set calls processMemoryReleaser.request() when it stops its last instance above the resting level: the burst
// is over. A "last resort" major GC (the one V8 runs under memory pressure) then empties the page pool and frees what
// external memory the heap still held; it costs one full GC of the main heap (tens of ms), at most once a minute, and
// only after a burst. bench/upstream/rss-phases.ts measures the steady RSS after a burst with and without it, with glibc's
// malloc and with jemalloc preloaded as in the image.
//
// The GC function is Node's --expose-gc one, taken for a context of its own and the flag cleared at once, so neither
// this process's globals nor the plugin workers started later see a `gc`.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

interface GcOptions {
  type: 'major';
  execution: 'async';
  flavor: 'last-resort';
}
type GcFunction = (options: GcOptions) => Promise<void>;

/** Wait after a request: the stopped workers exit meanwhile, and pools shrinking together make one GC. */
const RELEASE_DELAY_MS = 2_000;
/** At most one GC per this interval, however often pools shrink. */
const RELEASE_MIN_INTERVAL_MS = 60_000;

let gcFunction: GcFunction | null | undefined;

/** Node's gc() for a fresh context, or null when this Node cannot give one (then nothing is released). */
function lastResortGc(): GcFunction | null {
  if (gcFunction === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const fn: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
      gcFunction = typeof fn === 'function' ? (fn as GcFunction) : null;
    } catch {
      gcFunction = null;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  return gcFunction;
}

export interface MemoryReleaserOptions {
  /** Runs the memory-reducing GC (default: V8's last-resort major GC). */
  collect?: () => Promise<void>;
  delayMs?: number;
  minIntervalMs?: number;
  now?: () => number;
}

/** Coalesces release requests into at most one memory-reducing GC per interval, run a little after the request. */
export class MemoryReleaser {
  readonly #collect: () => Promise<void>;
  readonly #delayMs: number;
  readonly #minIntervalMs: number;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #last = -Infinity;
  #runs = 0;

  constructor(options: MemoryReleaserOptions = {}) {
    this.#collect =
      options.collect ??
      (async () => {
        await lastResortGc()?.({ type: 'major', execution: 'async', flavor: 'last-resort' });
      });
    this.#delayMs = options.delayMs ?? RELEASE_DELAY_MS;
    this.#minIntervalMs = options.minIntervalMs ?? RELEASE_MIN_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** GCs run so far. */
  get runs(): number {
    return this.#runs;
  }

  /** Asks for a release: one GC `delayMs` from now, or when the interval since the last one is over. */
  request(): void {
    if (this.#timer !== undefined) return;
    const due = Math.max(this.#now() + this.#delayMs, this.#last + this.#minIntervalMs);
    this.#timer = setTimeout(() => void this.#run(), due - this.#now());
    // Never keeps the process alive: at shutdown there is nothing to give back.
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    this.#timer = undefined;
    this.#last = this.#now();
    this.#runs++;
    try {
      await this.#collect();
    } catch {
      // Best effort: memory stays as it was.
    }
  }

  /** Drops a pending release. */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** The process's releaser: every plugin's instance set shares it, so several shrinking at once cost one GC. */
export const processMemoryReleaser = new MemoryReleaser();
