// A token bucket: `ratePerSec` tokens trickle in, at most `burst` are banked.

export class TokenBucket {
  readonly ratePerSec: number;
  readonly burst: number;
  #tokens: number;
  #last: number;

  constructor(ratePerSec: number, burst: number, now = performance.now()) {
    this.ratePerSec = ratePerSec;
    this.burst = burst;
    this.#tokens = burst;
    this.#last = now;
  }

  /** Takes a token: 0 on success, else the whole seconds until one is available (at least 1, for Retry-After). */
  take(now = performance.now()): number {
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.ratePerSec);
    this.#last = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.#tokens) / this.ratePerSec));
  }
}
