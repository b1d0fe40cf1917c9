// Fault-injection knobs: their shape, defaults, and the one validator used by the CLI, the
// admin endpoint and the embedded handle alike.
import { invalid } from './errors.ts';
import { isOpKind } from './ops.ts';

export type FaultStatus = 429 | 500 | 503;

export interface FailRule {
  /** An operation name, "read", "write" or "*". */
  kind: string;
  /** How many more matching requests fail. */
  count: number;
  status: FaultStatus;
}

export interface Knobs {
  /** Added to every cloud API call. */
  latencyMs: number;
  /** Overrides latencyMs per operation or kind; an operation name beats "read"/"write", which beat "*". */
  latencyByKind: Record<string, number>;
  /** Fraction of cloud API calls answered 500 or 503 (chosen by the same generator). */
  errorRate: number;
  /** Seeds the errorRate generator; setting it (again) restarts the sequence. null: seeded randomly. */
  errorSeed: number | null;
  /** Token bucket over all cloud API calls; excess calls get 429 with Retry-After. */
  throttle: { ratePerSec: number; burst: number } | null;
  /** The next N cloud API calls get 429. */
  throttleNext: number;
  /** Retry-After seconds sent with throttleNext and failNext 429s (the bucket computes its own). */
  retryAfterSeconds: number;
  /** Every cloud API call gets 503 until cleared. */
  outage: boolean;
  /** Deterministic failures: the next `count` calls matching `kind` get `status`. First matching rule wins. */
  failNext: FailRule[];
  /** The next N cloud API calls have their connection reset before the operation runs (it does not happen). */
  resetNext: number;
  /** The next N cloud API writes run, then their connection is reset instead of answered (the change stands). */
  resetAfterNext: number;
}

export type KnobsPatch = Partial<Knobs>;

export function defaultKnobs(): Knobs {
  return {
    latencyMs: 0,
    latencyByKind: {},
    errorRate: 0,
    errorSeed: null,
    throttle: null,
    throttleNext: 0,
    retryAfterSeconds: 1,
    outage: false,
    failNext: [],
    resetNext: 0,
    resetAfterNext: 0,
  };
}

const MAX_LATENCY_MS = 600_000;
const FAULT_STATUSES: readonly number[] = [429, 500, 503];

const isInt = (v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
const isNum = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const KNOWN = new Set(Object.keys(defaultKnobs()));

/** Validates a patch (which may come from JSON or a CLI) and returns the merged knobs. Throws a 400 ApiError. */
export function mergeKnobs(current: Knobs, patch: unknown): Knobs {
  if (!isObject(patch)) throw invalid('knobs', 'must be an object');
  for (const key of Object.keys(patch)) if (!KNOWN.has(key)) throw invalid(key, 'is not a known knob');
  const next: Knobs = structuredClone(current);
  const p = patch;
  if (p.latencyMs !== undefined) {
    if (!isNum(p.latencyMs, 0, MAX_LATENCY_MS)) throw invalid('latencyMs', `must be 0..${MAX_LATENCY_MS}`);
    next.latencyMs = p.latencyMs;
  }
  if (p.latencyByKind !== undefined) {
    if (!isObject(p.latencyByKind)) throw invalid('latencyByKind', 'must be an object');
    const byKind: Record<string, number> = {};
    for (const [kind, ms] of Object.entries(p.latencyByKind)) {
      if (!isOpKind(kind)) throw invalid(`latencyByKind.${kind}`, 'is not an operation name, "read", "write" or "*"');
      if (!isNum(ms, 0, MAX_LATENCY_MS)) throw invalid(`latencyByKind.${kind}`, `must be 0..${MAX_LATENCY_MS}`);
      byKind[kind] = ms;
    }
    next.latencyByKind = byKind;
  }
  if (p.errorRate !== undefined) {
    if (!isNum(p.errorRate, 0, 1)) throw invalid('errorRate', 'must be a fraction 0..1');
    next.errorRate = p.errorRate;
  }
  if (p.errorSeed !== undefined) {
    if (p.errorSeed !== null && !isInt(p.errorSeed, 0, 0xffffffff))
      throw invalid('errorSeed', 'must be 0..2^32-1 or null');
    next.errorSeed = p.errorSeed;
  }
  if (p.throttle !== undefined) {
    if (p.throttle === null) next.throttle = null;
    else {
      if (!isObject(p.throttle)) throw invalid('throttle', 'must be {ratePerSec, burst} or null');
      const { ratePerSec, burst } = p.throttle;
      if (!isNum(ratePerSec, 0.001, 1e9)) throw invalid('throttle.ratePerSec', 'must be > 0');
      if (!isInt(burst, 1)) throw invalid('throttle.burst', 'must be an integer >= 1');
      next.throttle = { ratePerSec, burst };
    }
  }
  if (p.throttleNext !== undefined) {
    if (!isInt(p.throttleNext, 0)) throw invalid('throttleNext', 'must be an integer >= 0');
    next.throttleNext = p.throttleNext;
  }
  for (const key of ['resetNext', 'resetAfterNext'] as const) {
    if (p[key] === undefined) continue;
    if (!isInt(p[key], 0)) throw invalid(key, 'must be an integer >= 0');
    next[key] = p[key];
  }
  if (p.retryAfterSeconds !== undefined) {
    if (!isInt(p.retryAfterSeconds, 0, 86_400)) throw invalid('retryAfterSeconds', 'must be an integer 0..86400');
    next.retryAfterSeconds = p.retryAfterSeconds;
  }
  if (p.outage !== undefined) {
    if (typeof p.outage !== 'boolean') throw invalid('outage', 'must be true or false');
    next.outage = p.outage;
  }
  if (p.failNext !== undefined) {
    if (!Array.isArray(p.failNext)) throw invalid('failNext', 'must be an array');
    next.failNext = p.failNext.map((rule: unknown, n): FailRule => {
      if (!isObject(rule)) throw invalid(`failNext[${n}]`, 'must be {kind, count, status}');
      if (typeof rule.kind !== 'string' || !isOpKind(rule.kind)) {
        throw invalid(`failNext[${n}].kind`, 'must be an operation name, "read", "write" or "*"');
      }
      if (!isInt(rule.count, 1)) throw invalid(`failNext[${n}].count`, 'must be an integer >= 1');
      if (!FAULT_STATUSES.includes(rule.status as number))
        throw invalid(`failNext[${n}].status`, 'must be 429, 500 or 503');
      return { kind: rule.kind, count: rule.count, status: rule.status as FaultStatus };
    });
  }
  return next;
}
