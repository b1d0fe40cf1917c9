// Turns the knobs into per-request decisions. Order per cloud API call (admin calls are never faulted,
// so a test can always inspect and clear the cloud): outage -> throttling, both answered at once;
// then the latency sleep; then failNext and errorRate, so injected 500/503s are as slow as real answers.
import { ApiError } from './errors.ts';
import { defaultKnobs, type FaultStatus, type Knobs, type KnobsPatch, mergeKnobs } from './knobs.ts';
import { CLOUD_OPS, type CloudOp, kindMatches } from './ops.ts';
import { TokenBucket } from './token-bucket.ts';

/** mulberry32: tiny, fast and good enough to make "30% errors" reproducible from a seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const randomSeed = (): number => Math.floor(Math.random() * 0xffffffff);

function fault(status: FaultStatus, message: string, retryAfter?: number): ApiError {
  if (status === 429) return new ApiError(429, 'throttled', message, { retryAfter: retryAfter ?? 1 });
  return new ApiError(status, status === 500 ? 'internal_error' : 'unavailable', message);
}

export class FaultInjector {
  #knobs: Knobs = defaultKnobs();
  #rng = mulberry32(randomSeed());
  #bucket: TokenBucket | null = null;

  constructor(initial: KnobsPatch = {}) {
    this.set(initial);
  }

  get(): Knobs {
    return structuredClone(this.#knobs);
  }

  /** Merges a patch (validated; throws a 400 ApiError naming the knob) and returns the result. */
  set(patch: KnobsPatch): Knobs {
    const next = mergeKnobs(this.#knobs, patch);
    if (patch.errorSeed !== undefined) this.#rng = mulberry32(next.errorSeed ?? randomSeed());
    if (patch.throttle !== undefined) {
      this.#bucket = next.throttle ? new TokenBucket(next.throttle.ratePerSec, next.throttle.burst) : null;
    }
    this.#knobs = next;
    return this.get();
  }

  reset(): Knobs {
    this.#knobs = defaultKnobs();
    this.#rng = mulberry32(randomSeed());
    this.#bucket = null;
    return this.get();
  }

  /** Outage and throttling: answered before any latency, as a real front door would. */
  admit(op: CloudOp): ApiError | null {
    const k = this.#knobs;
    if (k.outage) return fault(503, 'devcloud is in an outage (injected)');
    if (k.throttleNext > 0) {
      k.throttleNext--;
      return fault(429, `${op} throttled (injected: throttleNext)`, k.retryAfterSeconds);
    }
    if (this.#bucket) {
      const wait = this.#bucket.take();
      if (wait > 0) return fault(429, `${op} throttled: over ${this.#bucket.ratePerSec} requests/s`, wait);
    }
    return null;
  }

  delayMs(op: CloudOp): number {
    const k = this.#knobs;
    return k.latencyByKind[op] ?? k.latencyByKind[CLOUD_OPS[op]] ?? k.latencyByKind['*'] ?? k.latencyMs;
  }

  /** True when this call's connection is to be reset before it runs (counts resetNext down). */
  resetBefore(): boolean {
    if (this.#knobs.resetNext <= 0) return false;
    this.#knobs.resetNext--;
    return true;
  }

  /** True when this write, having run, is to be answered with a reset (counts resetAfterNext down). */
  resetAfter(op: CloudOp): boolean {
    if (this.#knobs.resetAfterNext <= 0 || CLOUD_OPS[op] !== 'write') return false;
    this.#knobs.resetAfterNext--;
    return true;
  }

  /** failNext first (deterministic by construction), then the seeded error rate. */
  inject(op: CloudOp): ApiError | null {
    const k = this.#knobs;
    const index = k.failNext.findIndex((r) => kindMatches(r.kind, op));
    if (index >= 0) {
      const rule = k.failNext[index]!;
      rule.count--;
      if (rule.count <= 0) k.failNext.splice(index, 1);
      return fault(rule.status, `${op} failed (injected: failNext ${rule.kind})`, k.retryAfterSeconds);
    }
    if (k.errorRate > 0 && this.#rng() < k.errorRate) {
      const status = this.#rng() < 0.5 ? 500 : 503;
      return fault(status, `${op} failed (injected: errorRate ${k.errorRate})`);
    }
    return null;
  }
}
