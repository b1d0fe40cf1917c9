import { afterEach, describe, expect, it } from 'vitest';
import type { ExitCause } from '../../../host/src/plugin/instance/plugin-instance.ts';
import {
  type InstanceExitListener,
  InstancePool,
  type InstancePoolOptions,
  PoolClosedError,
  PoolTimeoutError,
} from '../../../host/src/plugin/pool/instance-pool.ts';
import { recordingLogger } from './support/recording-logger.ts';

// A stand-in for PluginInstance: the pool only needs id, alive and terminate, and to be told when one ends.
class FakeInstance {
  static next = 1;
  readonly id = FakeInstance.next++;
  alive = true;
  cause: ExitCause | undefined;
  readonly #onExit: InstanceExitListener<FakeInstance>;
  constructor(onExit: InstanceExitListener<FakeInstance>) {
    this.#onExit = onExit;
  }
  async terminate(cause: ExitCause, reason: string): Promise<void> {
    this.die(cause, reason);
  }
  die(cause: ExitCause = 'crash', reason = 'died'): void {
    if (!this.alive) return;
    this.alive = false;
    this.cause = cause;
    this.#onExit(this, cause, reason);
  }
}

const pools: InstancePool<FakeInstance>[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function makePool(options: Partial<InstancePoolOptions<FakeInstance>> & { failStarts?: number } = {}) {
  const started: FakeInstance[] = [];
  const restarts: ExitCause[] = [];
  let failures = options.failStarts ?? 0;
  const pool = new InstancePool<FakeInstance>({
    size: 2,
    spares: 1,
    logger: recordingLogger().logger,
    onRestart: (cause) => restarts.push(cause),
    restartBackoffMs: 10,
    start: async (onExit) => {
      await new Promise((r) => setTimeout(r, 5));
      if (failures > 0) {
        failures--;
        throw new Error('initialize said no');
      }
      const instance = new FakeInstance(onExit);
      started.push(instance);
      return instance;
    },
    ...options,
  });
  pools.push(pool);
  return { pool, started, restarts };
}

const hold = () => {
  let release = (): void => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  return { held, release };
};

describe('instance pool', () => {
  it('starts size + spares instances and serves up to size calls at once, queueing the rest', async () => {
    const { pool, started } = makePool();
    await pool.fill();
    expect(started).toHaveLength(3);
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
    expect(pool.stats).toMatchObject({ busy: 2, waiting: 1, idle: 1 });
    gates[0]?.release();
    await calls[0];
    await new Promise((r) => setTimeout(r, 0));
    expect(pool.stats).toMatchObject({ busy: 2, waiting: 0 });
    gates[1]?.release();
    gates[2]?.release();
    await Promise.all(calls);
    expect(new Set(used).size).toBeLessThanOrEqual(2 + 1);
  });

  it('hands the next call to a ready spare at once when an instance dies, and starts a replacement', async () => {
    const { pool, started, restarts } = makePool({ size: 1, spares: 1 });
    await pool.fill();
    const first = await pool.use(async (i) => {
      i.die('timeout', 'past its deadline');
      return i;
    }, 100);
    expect(restarts).toEqual(['timeout']);
    // The spare is idle and serves immediately, while the replacement is starting.
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
    const { pool, started, restarts } = makePool({ size: 1, spares: 0 });
    await pool.fill();
    started[0]?.die('crash', 'worker out of memory');
    expect(restarts).toEqual(['crash']);
    const served = await pool.use(async (i) => i, 500);
    expect(served).toBe(started[1]);
  });

  it('times out a caller that waits too long for a free instance', async () => {
    const { pool } = makePool({ size: 1, spares: 0 });
    await pool.fill();
    const gate = hold();
    const busy = pool.use(() => gate.held, 1000);
    await expect(pool.use(async () => 1, 30)).rejects.toThrow(PoolTimeoutError);
    gate.release();
    await busy;
    expect(await pool.use(async () => 2, 30)).toBe(2);
  });

  it('retries failed starts with backoff and names the failure to waiting callers', async () => {
    const { pool, started } = makePool({ size: 1, spares: 0, failStarts: 3 });
    await expect(pool.fill()).rejects.toThrow('initialize said no');
    await expect(pool.use(async () => 1, 15)).rejects.toThrow(/instances fail to start: initialize said no/);
    // 10 + 20 ms of backoff later the third retry succeeds.
    expect(await pool.use(async (i) => i.id, 1000)).toBe(started[0]?.id);
  });

  it('recycles: idle instances now, busy ones when their call ends', async () => {
    const { pool, started, restarts } = makePool({ size: 1, spares: 1 });
    await pool.fill();
    const gate = hold();
    const busy = pool.use(async (i) => {
      await gate.held;
      return i;
    }, 1000);
    await new Promise((r) => setTimeout(r, 1));
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
    const { pool, started } = makePool({ size: 1, spares: 0 });
    await pool.fill();
    const gate = hold();
    void pool.use(() => gate.held, 1000);
    const waiting = pool.use(async () => 1, 1000);
    await pool.close();
    await expect(waiting).rejects.toThrow(PoolClosedError);
    await expect(pool.use(async () => 1, 10)).rejects.toThrow(PoolClosedError);
    expect(started.every((i) => !i.alive && i.cause === 'closed')).toBe(true);
    gate.release();
  });
});
