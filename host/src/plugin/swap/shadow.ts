// Shadow mode: before a candidate takes over, it answers the read-only calls (instanceMetadata, getLoadBalancer)
// beside the current plugin, and any difference is logged and counted. The controllers only ever see the current
// plugin's answer; the candidate's call runs afterwards and nothing waits for it except the session itself.
// A session ends after `calls` comparisons or `seconds`, whichever comes first.
import { isProviderError, type Provider } from '../../cloudprovider/index.ts';
import type { Logger } from '../../log/logger.ts';
import type { ShadowPolicy } from '../config/types.ts';
import type { ShadowMethod } from './forwarders.generated.ts';
import type { Settled } from './settled.ts';

export interface ShadowSummary {
  compared: number;
  differences: number;
  /** The first few differences, for /debug/plugins. */
  examples: { method: ShadowMethod; object: string; current: string; candidate: string }[];
}

export interface ShadowSessionOptions {
  candidate: Provider;
  policy: ShadowPolicy;
  logger: Logger;
  /** Counts one comparison (`same` false for a difference). */
  onCompared?: (method: ShadowMethod, same: boolean) => void;
}

const MAX_EXAMPLES = 5;

export class ShadowSession {
  readonly summary: ShadowSummary = { compared: 0, differences: 0, examples: [] };
  readonly #options: ShadowSessionOptions;
  readonly #pending = new Set<Promise<void>>();
  readonly #done: Promise<void>;
  #finish: () => void = () => {};
  #finished = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ShadowSessionOptions) {
    this.#options = options;
    this.#done = new Promise((resolve) => (this.#finish = resolve));
    this.#timer = setTimeout(() => this.#end(), options.policy.seconds * 1000);
  }

  /** Whether the session has compared enough calls or run out of time. */
  get isFinished(): boolean {
    return this.#finished;
  }

  /** Resolves when the session has compared enough calls or run out of time, and no shadow call is left running. */
  async finished(signal?: AbortSignal): Promise<void> {
    const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([this.#done, aborted]);
    this.#end();
    await Promise.allSettled([...this.#pending]);
  }

  /** Repeats a read-only call on the candidate and compares its outcome with the current plugin's. */
  mirror<T>(method: ShadowMethod, object: string, current: Settled<T>, call: (p: Provider) => Promise<T>): void {
    if (this.#finished) return;
    const run = (async () => {
      let candidate: Settled<T>;
      try {
        candidate = { ok: true, value: await call(this.#options.candidate) };
      } catch (error) {
        candidate = { ok: false, error };
      }
      if (this.#finished) return;
      this.#record(method, object, outcome(current), outcome(candidate));
    })();
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
  }

  #record(method: ShadowMethod, object: string, current: string, candidate: string): void {
    const same = current === candidate;
    this.summary.compared++;
    this.#options.onCompared?.(method, same);
    if (!same) {
      this.summary.differences++;
      if (this.summary.examples.length < MAX_EXAMPLES)
        this.summary.examples.push({ method, object, current, candidate });
      this.#options.logger.warn('shadow: candidate answered differently', { method, object, current, candidate });
    }
    if (this.summary.compared >= this.#options.policy.calls) this.#end();
  }

  #end(): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#timer);
    this.#finish();
  }
}

/** A canonical text for an answer or an error: errors compare by code (their messages name the plugin). */
function outcome(result: Settled<unknown>): string {
  if (!result.ok) return `error ${isProviderError(result.error) ? result.error.code : 'Internal'}`;
  return canonicalJson(result.value);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
