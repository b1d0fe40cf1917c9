// A fixed number of plugin instances serving calls, plus pre-warmed spares. An instance serves one call at a time;
// `size` calls run concurrently and further callers queue. When an instance is lost (deadline, trap, crash, limit)
// an idle one takes the next call at once and a replacement starts in the background, with backoff when starting
// fails, so the pool keeps size + spares instances whenever it can.
import type { Logger } from '../../log/logger.ts';
import type { ExitCause } from '../instance/plugin-instance.ts';

/** What the pool needs of an instance (PluginInstance; a fake in the pool's tests). */
export interface PoolInstance {
  readonly id: number;
  readonly alive: boolean;
  terminate(cause: ExitCause, reason: string): Promise<void>;
}

export type InstanceExitListener<I> = (instance: I, cause: ExitCause, detail: string) => void;

/** Starts one ready-to-serve instance (initialized); `onExit` must reach the pool when it ends. */
export type InstanceStarter<I> = (onExit: InstanceExitListener<I>) => Promise<I>;

export interface InstancePoolOptions<I extends PoolInstance> {
  /** Concurrent calls. */
  size: number;
  /** Idle instances kept ready beyond `size`, to take over when one is lost. */
  spares: number;
  start: InstanceStarter<I>;
  logger: Logger;
  onRestart: (cause: ExitCause) => void;
  /** First delay after a failed start; doubles up to maxRestartBackoffMs. */
  restartBackoffMs?: number;
  maxRestartBackoffMs?: number;
}

export class PoolClosedError extends Error {
  override name = 'PoolClosedError';
}

export class PoolTimeoutError extends Error {
  override name = 'PoolTimeoutError';
}

interface Waiter<I> {
  resolve: (instance: I) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class InstancePool<I extends PoolInstance> {
  readonly #options: InstancePoolOptions<I>;
  readonly #idle: I[] = [];
  readonly #busy = new Set<I>();
  readonly #generation = new WeakMap<I, number>();
  #currentGeneration = 0;
  #starting = 0;
  #waiters: Waiter<I>[] = [];
  #closed = false;
  #backoffMs: number;
  #retryTimer: NodeJS.Timeout | undefined;
  #lastStartError: string | undefined;

  constructor(options: InstancePoolOptions<I>) {
    if (options.size < 1) throw new RangeError('pool size must be at least 1');
    this.#options = options;
    this.#backoffMs = options.restartBackoffMs ?? 100;
  }

  /** Adds an instance started elsewhere (the loader's first one) to the pool. */
  adopt(instance: I): void {
    if (!instance.alive) {
      this.#refill();
      return;
    }
    this.#generation.set(instance, this.#currentGeneration);
    this.#idle.push(instance);
    this.#dispatch();
  }

  /** Starts instances until size + spares exist; resolves when they are all ready, rejects if one fails to start. */
  async fill(): Promise<void> {
    const missing = this.#target - this.#count;
    const started: Promise<I>[] = [];
    for (let i = 0; i < missing; i++) started.push(this.#startOne());
    await Promise.all(started);
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
    for (const waiter of this.#waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new PoolClosedError('the plugin is shutting down'));
    }
    const all = [...this.#idle.splice(0), ...this.#busy];
    await Promise.all(all.map((i) => i.terminate('closed', 'pool closed')));
  }

  get #target(): number {
    return this.#options.size + this.#options.spares;
  }

  get #count(): number {
    return this.#idle.length + this.#busy.size + this.#starting;
  }

  #acquire(queueTimeoutMs: number): Promise<I> {
    if (this.#closed) return Promise.reject(new PoolClosedError('the plugin is shut down'));
    const ready = this.#takeIdle();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise<I>((resolve, reject) => {
      const waiter: Waiter<I> = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          const why = this.#lastStartError ? ` (instances fail to start: ${this.#lastStartError})` : '';
          reject(new PoolTimeoutError(`no plugin instance became free within ${queueTimeoutMs} ms${why}`));
        }, queueTimeoutMs),
      };
      this.#waiters.push(waiter);
    });
  }

  #takeIdle(): I | undefined {
    if (this.#busy.size >= this.#options.size) return undefined;
    // Most recently used first: it is the one with warm caches; spares stay parked.
    let instance = this.#idle.pop();
    while (instance !== undefined && !instance.alive) instance = this.#idle.pop();
    if (instance !== undefined) this.#busy.add(instance);
    return instance;
  }

  #release(instance: I): void {
    this.#busy.delete(instance);
    if (instance.alive && !this.#closed) {
      if (this.#generation.get(instance) === this.#currentGeneration) this.#idle.push(instance);
      else void instance.terminate('recycle', 'recycled');
    }
    // An instance that died during its call was still counted as busy when its exit was reported.
    if (!instance.alive) this.#refill();
    this.#dispatch();
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
    const index = this.#idle.indexOf(instance);
    if (index >= 0) this.#idle.splice(index, 1);
    if (this.#closed || cause === 'closed') return;
    this.#options.onRestart(cause);
    this.#options.logger.warn('plugin instance replaced', { instance: instance.id, cause, detail });
    this.#refill();
  };

  #refill(): void {
    if (this.#closed || this.#retryTimer !== undefined) return;
    while (this.#count < this.#target) {
      this.#startOne().catch(() => {
        // Logged in #startOne; retried after a backoff.
      });
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
      this.#lastStartError = (err as Error).message;
      if (!this.#closed) this.#scheduleRetry(err as Error);
      throw err;
    }
  }

  #scheduleRetry(err: Error): void {
    if (this.#retryTimer !== undefined) return;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(delay * 2, this.#options.maxRestartBackoffMs ?? 30_000);
    this.#options.logger.error('plugin instance failed to start; retrying', { error: err.message, retryInMs: delay });
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#refill();
    }, delay);
    this.#retryTimer.unref();
  }
}
