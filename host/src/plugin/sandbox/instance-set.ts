// An elastic set of plugin instances. An instance serves one call at a time; at most `size` calls run concurrently and
// further callers queue. The set keeps only what the load needs: one instance per call running or queued, at least
// `minInstances` and never more than `size`. Plugin instances live in worker threads with megabytes resident each
// (bench/upstream/idle-floor.ts measures one; plugin-worker.ts puts several instances in one), so an idle CCM keeps
// minInstances of them, not size. Instances above that level
// that sit idle for `idleTimeoutMs` are stopped (oldest first).
// When an instance is lost (deadline, trap, crash, limit) an idle one takes the next call at once and a replacement
// starts in the background, with backoff when starting fails. A lost instance's worker may take a while to stop (V8
// acts on a termination request only at certain points of the guest's code): up to `size` such stopping workers are
// not counted, so replacements start at once; beyond that each one counts until it has exited, which bounds the
// workers alive at once, and their memory, whatever a plugin does.
// Once shrinking has brought the set back to its resting level, the burst that grew it is over: the set says so
// (`onShrunk`; by default the process's MemoryReleaser, release-memory.ts, which gives V8's pooled heap pages back).
import type { Logger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';
import type { ExitCause } from './plugin-instance.ts';
import { processMemoryReleaser } from './release-memory.ts';

/** What the pool needs of an instance (PluginInstance; a fake in the pool's tests). */
export interface InstanceSetMember {
  readonly id: number;
  readonly alive: boolean;
  terminate(cause: ExitCause, reason: string): Promise<void>;
}

export type InstanceExitListener<I> = (instance: I, cause: ExitCause, detail: string) => void;

/** Starts one ready-to-serve instance (initialized); `onExit` must reach the pool when it ends. */
export type InstanceStarter<I> = (onExit: InstanceExitListener<I>) => Promise<I>;

export interface InstanceSetOptions<I extends InstanceSetMember> {
  /** Most calls served concurrently. */
  size: number;
  /** Instances kept however idle the pool is (1 to size). Default 1. */
  minInstances?: number;
  /** Instances above minInstances idle this long are stopped. Default 60 s; Infinity never shrinks. */
  idleTimeoutMs?: number;
  start: InstanceStarter<I>;
  logger: Logger;
  onRestart: (cause: ExitCause) => void;
  /**
   * Called when idle instances were stopped and the pool is back at its resting level (a burst is over). Default: ask
   * the process's MemoryReleaser for a memory-reducing GC.
   */
  onShrunk?: () => void;
  /** First delay after a failed start; doubles up to maxRestartBackoffMs. */
  restartBackoffMs?: number;
  maxRestartBackoffMs?: number;
}

const DEFAULT_MIN_INSTANCES = 1;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

export class InstanceSetClosedError extends Error {
  override name = 'InstanceSetClosedError';
}

export class NoFreeInstanceError extends Error {
  override name = 'NoFreeInstanceError';
}

interface Waiter<I> {
  resolve: (instance: I) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class InstanceSet<I extends InstanceSetMember> {
  readonly #options: InstanceSetOptions<I>;
  readonly #minInstances: number;
  readonly #idleTimeoutMs: number;
  /** Oldest release first: the stack's top is the most recently used instance, its bottom the longest idle. */
  readonly #idle: I[] = [];
  readonly #idleSince = new WeakMap<I, number>();
  readonly #busy = new Set<I>();
  /** Lost instances whose worker has not exited yet (their exit not reported). */
  readonly #stopping = new Set<I>();
  readonly #exited = new WeakSet<I>();
  readonly #generation = new WeakMap<I, number>();
  #currentGeneration = 0;
  #starting = 0;
  readonly #inFlight = new Set<Promise<I>>();
  #waiters: Waiter<I>[] = [];
  #closed = false;
  #backoffMs: number;
  #retryTimer: NodeJS.Timeout | undefined;
  #shrinkTimer: NodeJS.Timeout | undefined;
  #lastStartError: string | undefined;

  constructor(options: InstanceSetOptions<I>) {
    if (options.size < 1) throw new RangeError('pool size must be at least 1');
    const min = options.minInstances ?? DEFAULT_MIN_INSTANCES;
    if (!Number.isInteger(min) || min < 1 || min > options.size) {
      throw new RangeError(`pool minInstances must be from 1 to size (${options.size}), got ${min}`);
    }
    const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    if (!(idleTimeoutMs > 0)) throw new RangeError(`pool idleTimeoutMs must be positive, got ${idleTimeoutMs}`);
    this.#options = options;
    this.#minInstances = min;
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#backoffMs = options.restartBackoffMs ?? 100;
  }

  /** Adds an instance started elsewhere (the loader's first one) to the pool. */
  adopt(instance: I): void {
    if (!instance.alive) {
      this.#refill();
      return;
    }
    this.#generation.set(instance, this.#currentGeneration);
    this.#pushIdle(instance);
    this.#dispatch();
    this.#scheduleShrink();
  }

  /**
   * Starts instances up to what the pool wants now (at rest: minInstances); resolves when they and any
   * started earlier are ready, rejects if one fails to start.
   */
  async fill(): Promise<void> {
    const missing = this.#desired - this.#count;
    for (let i = 0; i < missing; i++) this.#launch();
    await Promise.all(this.#inFlight);
  }

  get stats(): { idle: number; busy: number; starting: number; waiting: number } {
    return { idle: this.#idle.length, busy: this.#busy.size, starting: this.#starting, waiting: this.#waiters.length };
  }

  /** Runs `fn` with an instance of its own; waits at most `queueTimeoutMs` for one to be free. */
  async use<T>(fn: (instance: I) => Promise<T>, queueTimeoutMs: number): Promise<T> {
    const instance = await this.#acquire(queueTimeoutMs);
    try {
      return await fn(instance);
    } finally {
      this.#release(instance);
    }
  }

  /** Replaces every instance (idle ones now, busy ones when their call ends): for example after a config change. */
  recycle(): void {
    this.#currentGeneration++;
    for (const instance of this.#idle.splice(0)) void instance.terminate('recycle', 'recycled');
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#shrinkTimer);
    for (const waiter of this.#waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new InstanceSetClosedError('the plugin is shutting down'));
    }
    const all = [...this.#idle.splice(0), ...this.#busy];
    await Promise.all(all.map((i) => i.terminate('closed', 'pool closed')));
  }

  /** Instances wanted now: one per call running or waiting, at least minInstances, at most size. */
  get #desired(): number {
    return Math.min(this.#options.size, Math.max(this.#minInstances, this.#busy.size + this.#waiters.length));
  }

  get #count(): number {
    const stoppingOverAllowance = Math.max(0, this.#stopping.size - this.#options.size);
    return this.#idle.length + this.#busy.size + this.#starting + stoppingOverAllowance;
  }

  #acquire(queueTimeoutMs: number): Promise<I> {
    if (this.#closed) return Promise.reject(new InstanceSetClosedError('the plugin is shut down'));
    const ready = this.#takeIdle();
    if (ready !== undefined) {
      // The pool may still be below what it wants (a replacement not started yet): top it up.
      this.#refill();
      return Promise.resolve(ready);
    }
    const promise = new Promise<I>((resolve, reject) => {
      const waiter: Waiter<I> = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          const why = this.#lastStartError ? ` (instances fail to start: ${this.#lastStartError})` : '';
          reject(new NoFreeInstanceError(`no plugin instance became free within ${queueTimeoutMs} ms${why}`));
        }, queueTimeoutMs),
      };
      this.#waiters.push(waiter);
    });
    this.#refill();
    return promise;
  }

  #takeIdle(): I | undefined {
    if (this.#busy.size >= this.#options.size) return undefined;
    // Most recently used first: it is the one with warm caches, and the others can age out.
    let instance = this.#idle.pop();
    while (instance !== undefined && !instance.alive) instance = this.#idle.pop();
    if (instance !== undefined) this.#busy.add(instance);
    return instance;
  }

  #release(instance: I): void {
    this.#busy.delete(instance);
    if (instance.alive && !this.#closed) {
      if (this.#generation.get(instance) === this.#currentGeneration) this.#pushIdle(instance);
      else void instance.terminate('recycle', 'recycled');
    }
    // An instance that died during its call was still counted as busy when its exit was reported; one lost at its
    // deadline is still stopping.
    if (!instance.alive) {
      if (!this.#exited.has(instance)) this.#stopping.add(instance);
      this.#refill();
    }
    this.#dispatch();
    this.#scheduleShrink();
  }

  #pushIdle(instance: I): void {
    this.#idleSince.set(instance, Date.now());
    this.#idle.push(instance);
  }

  #dispatch(): void {
    while (this.#waiters.length > 0) {
      const instance = this.#takeIdle();
      if (instance === undefined) return;
      const waiter = this.#waiters.shift() as Waiter<I>;
      clearTimeout(waiter.timer);
      waiter.resolve(instance);
    }
  }

  /** Must be called when an instance of this pool ends; InstanceStarter receives it too. */
  readonly onInstanceExit: InstanceExitListener<I> = (instance, cause, detail) => {
    this.#exited.add(instance);
    this.#stopping.delete(instance);
    const index = this.#idle.indexOf(instance);
    if (index >= 0) this.#idle.splice(index, 1);
    // 'closed': the pool ended it on purpose (shutdown, or idle beyond the resting level), not a loss to replace.
    if (this.#closed || cause === 'closed') return;
    this.#options.onRestart(cause);
    this.#options.logger.warn('plugin instance replaced', { instance: instance.id, cause, detail });
    this.#refill();
  };

  #refill(): void {
    if (this.#closed || this.#retryTimer !== undefined) return;
    while (this.#count < this.#desired) {
      this.#launch().catch(() => {
        // Logged in #startOne; retried after a backoff.
      });
    }
  }

  #launch(): Promise<I> {
    const started = this.#startOne();
    this.#inFlight.add(started);
    const forget = (): void => void this.#inFlight.delete(started);
    started.then(forget, forget);
    return started;
  }

  // One timer for the whole pool, due when the longest-idle instance above the resting level expires.
  #scheduleShrink(): void {
    if (this.#closed || this.#shrinkTimer !== undefined || !Number.isFinite(this.#idleTimeoutMs)) return;
    if (this.#count <= this.#desired || this.#idle.length === 0) return;
    const oldest = this.#idleSince.get(this.#idle[0] as I) ?? Date.now();
    const delay = Math.max(0, oldest + this.#idleTimeoutMs - Date.now());
    this.#shrinkTimer = setTimeout(() => {
      this.#shrinkTimer = undefined;
      this.#shrink();
      this.#scheduleShrink();
    }, delay);
    this.#shrinkTimer.unref();
  }

  #shrink(): void {
    const now = Date.now();
    let stopped = 0;
    // Only instances idle past the timeout go, oldest first, and never below what the pool wants right now.
    while (this.#count > this.#desired && this.#idle.length > 0) {
      const oldest = this.#idle[0] as I;
      const idleMs = now - (this.#idleSince.get(oldest) ?? now);
      if (idleMs < this.#idleTimeoutMs) break;
      this.#idle.shift();
      stopped++;
      this.#options.logger.debug('plugin instance stopped after idling', { instance: oldest.id, idleMs });
      void oldest.terminate('closed', 'idle beyond the pool minimum');
    }
    // Back at the resting level (not just at what calls still running need): the burst is over.
    if (stopped > 0 && this.#count <= this.#minInstances) {
      (this.#options.onShrunk ?? (() => processMemoryReleaser.request()))();
    }
  }

  async #startOne(): Promise<I> {
    this.#starting++;
    try {
      const instance = await this.#options.start(this.onInstanceExit);
      this.#starting--;
      this.#backoffMs = this.#options.restartBackoffMs ?? 100;
      this.#lastStartError = undefined;
      if (this.#closed) {
        await instance.terminate('closed', 'pool closed');
        return instance;
      }
      this.adopt(instance);
      return instance;
    } catch (err) {
      this.#starting--;
      this.#lastStartError = errorMessage(err);
      if (!this.#closed) this.#scheduleRetry(this.#lastStartError);
      throw err;
    }
  }

  #scheduleRetry(reason: string): void {
    if (this.#retryTimer !== undefined) return;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(delay * 2, this.#options.maxRestartBackoffMs ?? 30_000);
    this.#options.logger.error('plugin instance failed to start; retrying', { error: reason, retryInMs: delay });
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#refill();
    }, delay);
    this.#retryTimer.unref();
  }
}
