// client-go's workqueue rate limiters: each answers "how long should this item wait before its next try".
import { type Clock, realClock } from '../clock.ts';
import { TokenBucket } from '../token-bucket.ts';

export interface RateLimiter<T> {
  /** The delay (ms) before `item` may be retried; records the attempt. */
  when(item: T): number;
  /** Clears the failure history of `item` (call when it was processed successfully). */
  forget(item: T): void;
  /** How many times `item` has been retried since it was last forgotten. */
  numRequeues(item: T): number;
}

/** base * 2^failures, capped at max: the per-item backoff. */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;

  constructor(baseMs: number, maxMs: number) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseMs * 2 ** exp;
    return Number.isFinite(backoff) && backoff < this.maxMs ? backoff : this.maxMs;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** An overall token bucket shared by all items: bounds the retry rate of the whole queue. */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The worst (longest) answer of several limiters; every limiter sees every call. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0) throw new Error('MaxOfRateLimiter needs at least one limiter');
    this.limiters = limiters;
  }

  when(item: T): number {
    let longest = 0;
    for (const limiter of this.limiters) longest = Math.max(longest, limiter.when(item));
    return longest;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let most = 0;
    for (const limiter of this.limiters) most = Math.max(most, limiter.numRequeues(item));
    return most;
  }
}

/** client-go's WithMaxWaitRateLimiter: another limiter's answer, never longer than `maxWaitMs`. */
export class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {
  private readonly limiter: RateLimiter<T>;
  private readonly maxWaitMs: number;

  constructor(limiter: RateLimiter<T>, maxWaitMs: number) {
    this.limiter = limiter;
    this.maxWaitMs = maxWaitMs;
  }

  when(item: T): number {
    return Math.min(this.limiter.when(item), this.maxWaitMs);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }
}

/**
 * client-go's DefaultControllerRateLimiter (and the cloud-node controller's): per-item exponential 5 ms .. 1000 s,
 * and overall 10 qps with a burst of 100 (the bucket only matters under massive failure).
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1000 * 1000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
