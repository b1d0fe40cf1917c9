// client-go's RateLimitingQueue: a delaying queue whose retries are spaced by a RateLimiter.
// The usual worker loop: get -> sync -> on success forget(key), on failure addRateLimited(key) -> done(key).
import { DelayingQueue, type DelayingQueueInterface } from './delaying.ts';
import type { QueueOptions } from './queue.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.ts';

export interface RateLimitingQueueInterface<T> extends DelayingQueueInterface<T> {
  /** Adds `item` after the delay its rate limiter assigns. */
  addRateLimited(item: T): void;
  /** Ends the rate limiter's tracking of `item` (its backoff starts over); does not remove it from the queue. */
  forget(item: T): void;
  numRequeues(item: T): number;
}

export interface RateLimitingQueueOptions<T> extends QueueOptions {
  /** Defaults to defaultControllerRateLimiter (on the queue's clock). */
  rateLimiter?: RateLimiter<T>;
}

export class RateLimitingQueue<T> extends DelayingQueue<T> implements RateLimitingQueueInterface<T> {
  readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
