// A worker with a batch size takes the keys already waiting with the one it waited for, prepares them together (one
// cloud call), and still syncs, forgets, requeues and marks done each key on its own.
import { describe, expect, it } from 'vitest';
import { runWorkers } from '../../../../host/src/controllers/framework/workers.ts';
import { RateLimitingQueue } from '../../../../host/src/kube/workqueue/rate-limiting.ts';
import { silentLogger } from '../../../../host/src/log/logger.ts';
import { FakeClock } from '../../../support/fake-clock.ts';

async function until(condition: () => boolean, clock: FakeClock): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await clock.advance(1);
  expect(condition()).toBe(true);
}

describe('runWorkers with a batch size', () => {
  it('prepares the waiting keys together and retries a failed key alone, with its own backoff', async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue<string>({ clock });
    const prepared: string[][] = [];
    const synced: string[] = [];
    let failB = true;
    for (const key of ['a', 'b', 'c', 'd', 'e']) queue.add(key);
    const running = runWorkers({
      queue,
      workers: 1,
      logger: silentLogger,
      batchSize: 3,
      prepare: async (keys) => {
        prepared.push([...keys]);
      },
      sync: async (key) => {
        synced.push(key);
        if (key === 'b' && failB) {
          failB = false;
          throw new Error('b failed');
        }
      },
    });
    await until(() => synced.length === 5, clock);
    expect(prepared).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    expect(queue.numRequeues('b')).toBe(1);
    expect(queue.numRequeues('a')).toBe(0);
    // The default controller backoff starts at 5 ms: b comes back after it, alone.
    await until(() => synced.length === 6, clock);
    expect(prepared.at(-1)).toEqual(['b']);
    expect(queue.numRequeues('b')).toBe(0);
    expect(queue.processingCount()).toBe(0);
    queue.shutDown();
    await running;
  });

  it('takes one key per turn without a batch size', async () => {
    const queue = new RateLimitingQueue<string>({ clock: new FakeClock() });
    const prepared: string[][] = [];
    for (const key of ['a', 'b']) queue.add(key);
    const running = runWorkers({
      queue,
      workers: 1,
      logger: silentLogger,
      prepare: async (keys) => {
        prepared.push([...keys]);
        if (prepared.length === 2) queue.shutDown();
      },
      sync: async () => {},
    });
    await running;
    expect(prepared).toEqual([['a'], ['b']]);
  });
});
