import { describe, expect, it } from 'vitest';
import { startStaggered } from '../../../host/src/app/start-staggered.ts';
import { FakeClock } from '../../support/fake-clock.ts';

describe('startStaggered (--controller-start-interval)', () => {
  it('starts each item between one and two intervals after the one before, and all at once with 0', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const started: number[] = [];
    const done = startStaggered(
      ['a', 'b', 'c'],
      1_000,
      new AbortController().signal,
      async () => void started.push(clock.now() - t0),
      clock,
    );
    await clock.advance(10_000);
    await done;
    expect(started).toHaveLength(3);
    expect(started[0]).toBe(0);
    for (let i = 1; i < 3; i++) {
      const gap = (started[i] as number) - (started[i - 1] as number);
      expect(gap).toBeGreaterThanOrEqual(1_000);
      expect(gap).toBeLessThanOrEqual(2_000);
    }
    const together: number[] = [];
    await startStaggered(
      ['a', 'b'],
      0,
      new AbortController().signal,
      async () => void together.push(clock.now()),
      clock,
    );
    expect(together).toEqual([clock.now(), clock.now()]);
  });

  it('starts nothing more once the signal aborts', async () => {
    const abort = new AbortController();
    const started: string[] = [];
    await startStaggered(['a', 'b', 'c'], 30, abort.signal, async (i) => {
      started.push(i);
      abort.abort();
    });
    expect(started).toEqual(['a']);
  });
});
