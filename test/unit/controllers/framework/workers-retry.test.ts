// A RetryError's delay replaces the controllers' backoff. Unbounded, a provider's Retry of 1e-9 s had its key synced
// in a loop (2,000 syncs in 3 s), and one above 2,147,483 s became a 1 ms timer re-armed for the whole delay
// (Node's TimeoutOverflowWarning, thousands a second): the delay is held within 1 s .. 1 hour.
import { describe, expect, it } from 'vitest';
import {
  RETRY_AFTER_MAX_SECONDS,
  RETRY_AFTER_MIN_SECONDS,
  RetryError,
} from '../../../../host/src/cloudprovider/index.ts';
import { runWorkers } from '../../../../host/src/controllers/framework/workers.ts';
import { RateLimitingQueue } from '../../../../host/src/kube/workqueue/rate-limiting.ts';
import { recordingLogger } from '../../plugin/support/recording-logger.ts';

/** The delay (ms) the worker loop requeues a key with after its sync failed with `err`. */
async function requeueDelay(err: Error): Promise<number> {
  const queue = new RateLimitingQueue<string>();
  const delays: number[] = [];
  const addAfter = queue.addAfter.bind(queue);
  queue.addAfter = (item, delayMs) => {
    delays.push(delayMs);
    addAfter(item, delayMs);
    queue.shutDown();
  };
  queue.add('default/lb');
  await runWorkers({
    queue,
    workers: 1,
    sync: () => Promise.reject(err),
    logger: recordingLogger().logger,
  });
  expect(delays).toHaveLength(1);
  return delays[0] as number;
}

describe('the delay a RetryError asks for', () => {
  it.each([
    ['a delay within the bounds', 7, 7_000],
    ['1e-9 s', 1e-9, RETRY_AFTER_MIN_SECONDS * 1000],
    ['0.5 s', 0.5, 1_000],
    ['2,147,484 s (past a 32-bit timer)', 2_147_484, RETRY_AFTER_MAX_SECONDS * 1000],
    ['Infinity', Infinity, 3_600_000],
    ['NaN', NaN, 1_000],
  ])('requeues after %s as the bounded delay', async (_what, seconds, expectedMs) => {
    expect(await requeueDelay(new RetryError('busy', seconds))).toBe(expectedMs);
  });

  it('is found in the cause chain and bounded there too', async () => {
    const wrapped = new Error('failed to ensure load balancer', { cause: new RetryError('busy', 1e12) });
    expect(await requeueDelay(wrapped)).toBe(3_600_000);
  });
});
