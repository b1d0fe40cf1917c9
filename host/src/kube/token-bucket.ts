// A token bucket with the semantics of golang.org/x/time/rate, which both client-go's BucketRateLimiter and its
// REST client limiter (flowcontrol.NewTokenBucketRateLimiter) use: the bucket starts full with `burst` tokens,
// refills at `qps` tokens per second, and a reservation always takes its token, going into debt if need be; the
// debt is the caller's delay. Reservations are therefore served strictly in order and the long-run rate holds.
import { type Clock, realClock, sleep } from './clock.ts';

export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    if (!(qps > 0)) throw new Error(`token bucket: qps must be > 0, got ${qps}`);
    if (!Number.isInteger(burst) || burst < 1)
      throw new Error(`token bucket: burst must be an integer >= 1, got ${burst}`);
    this.qps = qps;
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes one token and returns how many milliseconds the caller must wait before using it (0 = now). */
  reserve(): number {
    this.advance();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** Takes a token only if one is available now. */
  tryAccept(): boolean {
    this.advance();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Reserves a token and waits until it may be used; returns the time waited in ms. */
  async wait(signal?: AbortSignal): Promise<number> {
    const delay = this.reserve();
    if (delay > 0) await sleep(this.clock, delay, signal);
    return delay;
  }

  /** Tokens available now (negative while reservations are outstanding). */
  available(): number {
    this.advance();
    return this.tokens;
  }

  private advance(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = Math.max(this.last, now);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed / 1000) * this.qps);
  }
}
