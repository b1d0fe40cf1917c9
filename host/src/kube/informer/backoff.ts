// Exponential backoff with jitter for reconnect loops (client-go's reflector uses 800 ms doubling to 30 s with
// full jitter). Jitter spreads the reconnects of many informers and many replicas after an apiserver restart.

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  factor?: number;
  /** Each delay is d * (1 + jitter * random), then capped at maxMs. */
  jitter?: number;
  random?: () => number;
}

export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly random: () => number;
  private current: number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1;
    this.random = options.random ?? Math.random;
    this.current = this.initialMs;
  }

  /** The next delay; each call grows the following one. */
  next(): number {
    const base = this.current;
    this.current = Math.min(this.maxMs, this.current * this.factor);
    return Math.min(this.maxMs, base * (1 + this.jitter * this.random()));
  }

  reset(): void {
    this.current = this.initialMs;
  }
}
