import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  InstanceSet,
  InstanceSetClosedError,
  NoFreeInstanceError,
} from '../../../host/src/plugin/sandbox/instance-set.ts';
import { closePools, FakeInstance, hold, makePool } from './support/fake-instance-set.ts';
import { recordingLogger } from './support/recording-logger.ts';

afterEach(async () => {
  vi.useRealTimers();
  await closePools();
});

describe('instance set', () => {
  it('serves up to size calls at once, queueing the rest', async () => {
    const { pool, started } = makePool({ minInstances: 2 });
    await pool.fill();
    expect(started).toHaveLength(2);
    const gates = [hold(), hold(), hold()];
    const used: number[] = [];
    const calls = gates.map((g) =>
      pool.use(async (i) => {
        used.push(i.id);
        await g.held;
        return i.id;
      }, 1000),
    );
    await new Promise((r) => setTimeout(r, 10));
    expect(pool.stats).toMatchObject({ busy: 2, waiting: 1, idle: 0 });
    gates[0]?.release();
    await calls[0];
    await new Promise((r) => setTimeout(r, 0));
    expect(pool.stats).toMatchObject({ busy: 2, waiting: 0 });
    gates[1]?.release();
    gates[2]?.release();
    await Promise.all(calls);
    expect(new Set(used).size).toBe(2);
  });

  it('hands the next call to an idle instance at once when one dies, and starts a replacement', async () => {
    const { pool, started, restarts } = makePool({ size: 2, minInstances: 2 });
    await pool.fill();
    const first = await pool.use(async (i) => {
      i.die('timeout', 'past its deadline');
      return i;
    }, 100);
    expect(restarts).toEqual(['timeout']);
    // The other instance is idle and serves immediately, while the replacement is starting.
    const t = performance.now();
    const second = await pool.use(async (i) => i, 100);
    expect(performance.now() - t).toBeLessThan(5);
    expect(second).not.toBe(first);
    expect(second.alive).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect(started).toHaveLength(3);
    expect(pool.stats).toMatchObject({ idle: 2, starting: 0 });
  });

  it('replaces an idle instance that dies on its own', async () => {
    const { pool, started, restarts } = makePool({ size: 1 });
    await pool.fill();
    started[0]?.die('crash', 'worker out of memory');
    expect(restarts).toEqual(['crash']);
    const served = await pool.use(async (i) => i, 500);
    expect(served).toBe(started[1]);
  });

  it('times out a caller that waits too long for a free instance', async () => {
    const { pool } = makePool({ size: 1 });
    await pool.fill();
    const gate = hold();
    const busy = pool.use(() => gate.held, 1000);
    await expect(pool.use(async () => 1, 30)).rejects.toThrow(NoFreeInstanceError);
    gate.release();
    await busy;
    expect(await pool.use(async () => 2, 30)).toBe(2);
  });

  it('retries failed starts with backoff and names the failure to waiting callers', async () => {
    const { pool, started } = makePool({ size: 1, failStarts: 3 });
    await expect(pool.fill()).rejects.toThrow('initialize said no');
    await expect(pool.use(async () => 1, 15)).rejects.toThrow(/instances fail to start: initialize said no/);
    // 10 + 20 ms of backoff later the third retry succeeds.
    expect(await pool.use(async (i) => i.id, 1000)).toBe(started[0]?.id);
  });

  it('recycles: idle instances now, busy ones when their call ends', async () => {
    const { pool, started, restarts } = makePool({ size: 2, minInstances: 2 });
    await pool.fill();
    const gate = hold();
    const busy = pool.use(async (i) => {
      await gate.held;
      return i;
    }, 1000);
    await expect.poll(() => pool.stats.busy).toBe(1);
    pool.recycle();
    const [a, b] = started;
    expect([a?.alive, b?.alive].filter(Boolean)).toHaveLength(1); // the idle one went
    gate.release();
    const served = await busy;
    expect(served.alive).toBe(false);
    expect(restarts).toEqual(['recycle', 'recycle']);
    await new Promise((r) => setTimeout(r, 30));
    expect(started.filter((i) => i.alive)).toHaveLength(2);
  });

  it('rejects waiters and stops everything on close', async () => {
    const { pool, started } = makePool({ size: 1 });
    await pool.fill();
    const gate = hold();
    void pool.use(() => gate.held, 1000);
    const waiting = pool.use(async () => 1, 1000);
    await pool.close();
    await expect(waiting).rejects.toThrow(InstanceSetClosedError);
    await expect(pool.use(async () => 1, 10)).rejects.toThrow(InstanceSetClosedError);
    expect(started.every((i) => !i.alive && i.cause === 'closed')).toBe(true);
    gate.release();
  });
});

describe('instance set: elastic size', () => {
  const live = (started: FakeInstance[]) => started.filter((i) => i.alive).length;
  // Lets the fake starts (5 ms each) finish under fake timers.
  const settle = (ms = 20) => vi.advanceTimersByTimeAsync(ms);
  // Fills the pool, then starts `n` calls that each hold their instance until their gate is released.
  const burst = async (pool: ReturnType<typeof makePool>['pool'], n: number, timeoutMs = 10_000) => {
    const filling = pool.fill();
    await settle();
    await filling;
    const gates = Array.from({ length: n }, hold);
    const calls = gates.map((g) => pool.use(() => g.held, timeoutMs));
    await settle();
    return { gates, calls };
  };

  it('rests at minInstances, not size', async () => {
    const { pool, started } = makePool({ size: 10, minInstances: 2 });
    await pool.fill();
    expect(started).toHaveLength(2);
    expect(pool.stats).toMatchObject({ idle: 2, busy: 0, starting: 0 });
  });

  it('fill waits for instances already starting, and fails when one of them cannot start', async () => {
    const { pool, started } = makePool({ size: 4 });
    await pool.fill();
    // The second call finds no idle instance and starts one; fill() resolves only once it is ready.
    const gate = hold();
    const running = pool.use(() => gate.held, 1000);
    const running2 = pool.use(() => gate.held, 1000);
    expect(pool.stats.starting).toBe(1);
    await pool.fill();
    expect(pool.stats).toMatchObject({ starting: 0, idle: 0, busy: 2 });
    expect(started).toHaveLength(2);
    gate.release();
    await Promise.all([running, running2]);

    const failing = makePool({ size: 2, failStarts: 1 });
    await expect(failing.pool.fill()).rejects.toThrow('initialize said no');
  });

  it('grows with concurrent calls up to size, never above it', async () => {
    vi.useFakeTimers();
    const { pool, started } = makePool({ size: 4 });
    const { gates, calls } = await burst(pool, 7);
    // 4 busy (size), 3 waiting: 4 instances.
    expect(pool.stats).toMatchObject({ busy: 4, waiting: 3, idle: 0, starting: 0 });
    expect(live(started)).toBe(4);
    for (const g of gates) g.release();
    await settle();
    await Promise.all(calls);
    expect(live(started)).toBe(4);
  });

  it('starts one instance per queued caller and hands it over as soon as it is ready', async () => {
    vi.useFakeTimers();
    const { pool, started } = makePool({ size: 3 });
    const filling = pool.fill();
    await settle();
    await filling;
    expect(started).toHaveLength(1);
    const gates = [hold(), hold(), hold()];
    const served: number[] = [];
    const calls = gates.map((g) =>
      pool.use(async (i) => {
        served.push(i.id);
        await g.held;
      }, 10_000),
    );
    expect(pool.stats).toMatchObject({ busy: 1, waiting: 2, starting: 2 });
    await settle(6);
    expect(pool.stats).toMatchObject({ busy: 3, waiting: 0, starting: 0 });
    expect(new Set(served).size).toBe(3);
    for (const g of gates) g.release();
    await Promise.all(calls);
  });

  it('stops instances idle past the timeout, oldest first, down to minInstances', async () => {
    vi.useFakeTimers();
    const { pool, started, restarts } = makePool({ size: 4, minInstances: 2, idleTimeoutMs: 60_000 });
    const { gates, calls } = await burst(pool, 4);
    expect(live(started)).toBe(4);
    for (const g of gates) g.release();
    await Promise.all(calls);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(live(started)).toBe(4);
    // Keeps a recently used one: one more call 30 s in makes the most recently released instance fresh again.
    const recent = await pool.use(async (i) => i, 100);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(live(started)).toBe(2);
    expect(recent.alive).toBe(true);
    expect(started.filter((i) => !i.alive).every((i) => i.cause === 'closed')).toBe(true);
    // Shrinking is not a loss: nothing counted as a restart, nothing started in its place.
    expect(restarts).toEqual([]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(live(started)).toBe(2);
    expect(started).toHaveLength(4);
  });

  it('says it has shrunk once it is back at its resting level after a burst, not before and not at rest', async () => {
    vi.useFakeTimers();
    const { pool, started, shrunk } = makePool({ size: 4, idleTimeoutMs: 60_000 });
    const { gates, calls } = await burst(pool, 4);
    expect(live(started)).toBe(4);
    // Two calls end; two run on: shrinking stops two instances, but the pool is not back at rest.
    gates[0]?.release();
    gates[1]?.release();
    await Promise.all(calls.slice(0, 2));
    await vi.advanceTimersByTimeAsync(60_500);
    expect(live(started)).toBe(2);
    expect(shrunk).toEqual([]);
    gates[2]?.release();
    gates[3]?.release();
    await Promise.all(calls.slice(2));
    await vi.advanceTimersByTimeAsync(60_500);
    expect(live(started)).toBe(1);
    expect(shrunk).toEqual([1]);
    // At rest nothing more is stopped, and nothing more is said.
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(shrunk).toEqual([1]);
    // The next burst and its end: said once more.
    const more = Array.from({ length: 3 }, hold);
    const again = more.map((g) => pool.use(() => g.held, 10_000));
    await settle();
    for (const g of more) g.release();
    await Promise.all(again);
    await vi.advanceTimersByTimeAsync(61_000);
    expect(live(started)).toBe(1);
    expect(shrunk).toEqual([1, 1]);
  });

  it('never stops an instance below what running calls need', async () => {
    vi.useFakeTimers();
    const { pool, started } = makePool({ size: 4, minInstances: 2, idleTimeoutMs: 1_000 });
    const { gates, calls } = await burst(pool, 3, 100_000);
    expect(live(started)).toBe(3);
    await vi.advanceTimersByTimeAsync(60_000);
    // The 3 busy ones stay while their calls run.
    expect(live(started)).toBe(3);
    gates[0]?.release();
    gates[1]?.release();
    await Promise.all(calls.slice(0, 2));
    await vi.advanceTimersByTimeAsync(1_500);
    // One call still running: it and one idle instance (minInstances 2) remain.
    expect(live(started)).toBe(2);
    expect(pool.stats).toMatchObject({ busy: 1, idle: 1 });
    gates[2]?.release();
    await calls[2];
    await vi.advanceTimersByTimeAsync(5_000);
    expect(live(started)).toBe(2);
  });

  it('keeps minInstances alive when idle, however long', async () => {
    vi.useFakeTimers();
    const { pool, started } = makePool({ size: 8, minInstances: 3, idleTimeoutMs: 1_000 });
    const filling = pool.fill();
    await settle();
    await filling;
    expect(live(started)).toBe(3);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(live(started)).toBe(3);
  });

  it('with an infinite idle timeout, never shrinks', async () => {
    vi.useFakeTimers();
    const { pool, started } = makePool({ size: 3, idleTimeoutMs: Number.POSITIVE_INFINITY });
    const gates = Array.from({ length: 3 }, hold);
    const calls = gates.map((g) => pool.use(() => g.held, 10_000));
    await settle();
    for (const g of gates) g.release();
    await Promise.all(calls);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(live(started)).toBe(3);
  });

  it('replaces an instance lost under load, and an idle one serves its successor at once', async () => {
    vi.useFakeTimers();
    const { pool, started, restarts } = makePool({ size: 3, minInstances: 3 });
    const filling = pool.fill();
    await settle();
    await filling;
    const gate = hold();
    const running = pool.use(() => gate.held, 10_000);
    const deadline = hold();
    const losing = pool.use(async (i) => {
      // A call dies at its deadline while another runs and a third instance is idle.
      await deadline.held;
      i.die('timeout', 'past its deadline');
      return i;
    }, 10_000);
    await settle();
    deadline.release();
    const lost = await losing;
    // The successor gets an idle instance without waiting for a start.
    let successor: FakeInstance | undefined;
    void pool.use(async (i) => (successor = i), 10_000);
    await Promise.resolve();
    await Promise.resolve();
    expect(successor?.alive).toBe(true);
    expect(successor).not.toBe(lost);
    expect(restarts).toEqual(['timeout']);
    await settle();
    // One call running + the idle one that served the successor + the lost one's replacement (minInstances 3).
    expect(live(started)).toBe(3);
    expect(pool.stats).toMatchObject({ busy: 1, idle: 2, starting: 0 });
    gate.release();
    await running;
  });

  it('restarts to the resting level after an idle instance crashes', async () => {
    vi.useFakeTimers();
    const { pool, started, restarts } = makePool({ size: 5, minInstances: 2 });
    const filling = pool.fill();
    await settle();
    await filling;
    started[0]?.die('crash', 'worker out of memory');
    await settle();
    expect(restarts).toEqual(['crash']);
    expect(live(started)).toBe(2);
  });

  it('queued callers still time out when no instance can start', async () => {
    vi.useFakeTimers();
    const { pool } = makePool({ size: 2, failStarts: 100, restartBackoffMs: 1_000 });
    const first = pool.use(async () => 1, 50);
    const expectation = expect(first).rejects.toThrow(/within 50 ms \(instances fail to start: initialize said no\)/);
    await vi.advanceTimersByTimeAsync(60);
    await expectation;
  });

  it('recycles every instance after a config change and comes back to the resting level', async () => {
    vi.useFakeTimers();
    const { pool, started } = makePool({ size: 4, minInstances: 2 });
    const gates = Array.from({ length: 3 }, hold);
    const calls = gates.map((g) => pool.use(() => g.held, 10_000));
    await settle();
    const before = started.filter((i) => i.alive);
    pool.recycle();
    for (const g of gates) g.release();
    await Promise.all(calls);
    await settle();
    expect(before.every((i) => !i.alive)).toBe(true);
    expect(live(started)).toBe(2);
  });

  it('close stops every instance and the idle timer', async () => {
    vi.useFakeTimers();
    const { pool, started } = makePool({ size: 3, idleTimeoutMs: 1_000 });
    const gates = Array.from({ length: 3 }, hold);
    const calls = gates.map((g) => pool.use(() => g.held, 10_000));
    await settle();
    for (const g of gates) g.release();
    await Promise.all(calls);
    await pool.close();
    expect(started.every((i) => !i.alive && i.cause === 'closed')).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses a minInstances outside 1..size and a non-positive idle timeout', () => {
    const base = { logger: recordingLogger().logger, onRestart: () => {}, start: async () => never() };
    expect(() => new InstanceSet<FakeInstance>({ ...base, size: 2, minInstances: 3 })).toThrow(RangeError);
    expect(() => new InstanceSet<FakeInstance>({ ...base, size: 2, minInstances: 0 })).toThrow(RangeError);
    expect(() => new InstanceSet<FakeInstance>({ ...base, size: 2, idleTimeoutMs: 0 })).toThrow(RangeError);
  });
});

function never(): never {
  throw new Error('not started in this test');
}
