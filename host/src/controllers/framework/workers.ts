// The controller worker loop of client-go: N workers take keys from a rate-limited queue; success forgets the
// key's backoff, failure requeues it rate-limited (or after the fixed delay a RetryError asks for).
import { isRetry, type RetryError } from '../../cloudprovider/index.ts';
import type { RateLimitingQueueInterface } from '../../kube/workqueue/rate-limiting.ts';
import type { Logger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';

export interface WorkerOptions {
  queue: RateLimitingQueueInterface<string>;
  workers: number;
  sync: (key: string) => Promise<void>;
  logger: Logger;
  /** Called with every failure (metrics); never throws into the loop. */
  onError?: (key: string, err: unknown) => void;
  /**
   * Keys a worker takes per turn (default 1): the one it waited for, then those already waiting, up to this many.
   * Each key is still synced on its own, with its own forget, requeue and done.
   */
  batchSize?: number;
  /** Runs once per turn before its keys are synced (one cloud call for all of them); a failure is only logged. */
  prepare?: (keys: readonly string[]) => Promise<void>;
}

/** The RetryError in `err` or its cause chain (upstream wraps with %w and finds it with errors.As). */
export function findRetry(err: unknown): RetryError | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 10; depth++) {
    if (isRetry(e)) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}

/** One key: sync it, then forget its backoff, or requeue it (backoff or the provider's delay); always done. */
async function syncKey(options: WorkerOptions, key: string): Promise<void> {
  const { queue, logger } = options;
  try {
    await options.sync(key);
    queue.forget(key);
  } catch (err) {
    try {
      options.onError?.(key, err);
    } catch {
      // metrics must not stop a worker
    }
    const retry = findRetry(err);
    if (retry) {
      // A fixed delay from the provider replaces the backoff (upstream api.RetryError).
      logger.info('requeueing after the delay the provider asked for', {
        key,
        retryAfterSeconds: retry.retryAfterSeconds,
      });
      queue.forget(key);
      queue.addAfter(key, retry.retryAfterSeconds * 1000);
    } else {
      logger.error('error syncing; requeueing with backoff', {
        key,
        error: errorMessage(err),
        requeues: queue.numRequeues(key),
      });
      queue.addRateLimited(key);
    }
  } finally {
    queue.done(key);
  }
}

/** Runs the workers until the queue shuts down; resolves when all have exited. */
export async function runWorkers(options: WorkerOptions): Promise<void> {
  const { queue, logger } = options;
  const batchSize = Math.max(1, options.batchSize ?? 1);
  const worker = async (): Promise<void> => {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      const keys = [next.item];
      while (keys.length < batchSize) {
        const more = queue.tryGet();
        if (more === undefined) break;
        keys.push(more);
      }
      if (options.prepare) {
        try {
          await options.prepare(keys);
        } catch (err) {
          logger.error('preparing a batch of keys failed; syncing each on its own', { error: errorMessage(err) });
        }
      }
      for (const key of keys) await syncKey(options, key);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.workers) }, worker));
}

/** Runs `fn` every `periodMs` (first run immediately) until `signal` aborts; runs never overlap. */
export async function runPeriodically(
  periodMs: number,
  signal: AbortSignal,
  fn: () => Promise<void>,
  logger: Logger,
): Promise<void> {
  while (!signal.aborted) {
    const started = Date.now();
    try {
      await fn();
    } catch (err) {
      logger.error('periodic run failed', { error: errorMessage(err) });
    }
    const wait = Math.max(0, periodMs - (Date.now() - started));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

/** Time since `started` (a performance.now()) as Go prints a duration of milliseconds, for V(4) records: "12.345ms". */
export const elapsed = (started: number): string => `${(performance.now() - started).toFixed(3)}ms`;
