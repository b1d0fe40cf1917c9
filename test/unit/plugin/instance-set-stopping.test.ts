// Instances lost at their deadline leave service at once but their workers may take long to stop. The pool replaces
// them at once up to `size` stopping workers; past that, a replacement waits for a stopping worker to exit, so the
// workers alive at once stay bounded whatever a plugin does.
import { afterEach, describe, expect, it } from 'vitest';
import { closePools, type FakeInstance, makePool } from './support/fake-instance-set.ts';

afterEach(closePools);

// A call whose instance is lost at its deadline: out of service at once, its worker not exited yet.
const loseDuringCall = (instance: FakeInstance): Promise<never> => {
  instance.lose();
  return Promise.reject(new Error('deadline'));
};

describe('instance set with stopping workers', () => {
  it('replaces a lost instance at once while its worker stops, up to size stopping workers', async () => {
    const { pool, started } = makePool({ size: 1 });
    await pool.fill();
    await expect(pool.use(loseDuringCall, 1000)).rejects.toThrow('deadline');
    // The replacement starts without waiting for the first worker to exit, and serves.
    expect(await pool.use(async (i) => i.id, 1000)).toBe(started[1]?.id);
    expect(started).toHaveLength(2);

    // A second one lost while the first still stops: over the allowance, nothing starts until a worker exits.
    await expect(pool.use(loseDuringCall, 1000)).rejects.toThrow('deadline');
    const waiting = pool.use(async (i) => i.id, 5000);
    await expect.poll(() => pool.stats.waiting).toBe(1);
    expect(pool.stats.starting).toBe(0);
    expect(started).toHaveLength(2);
    started[0]?.die('timeout', 'worker exited');
    expect(await waiting).toBe(started[2]?.id);
    expect(started).toHaveLength(3);
  });

  it('counts a lost instance whose exit came before its call ended as gone, not stopping', async () => {
    const { pool, started } = makePool({ size: 1 });
    await pool.fill();
    await expect(
      pool.use(async (i) => {
        i.die('crash', 'exited during the call');
        throw new Error('crash');
      }, 1000),
    ).rejects.toThrow('crash');
    await expect(pool.use(loseDuringCall, 1000)).rejects.toThrow('deadline');
    // One stopping worker, within the allowance: the next call gets a replacement at once.
    expect(await pool.use(async (i) => i.id, 1000)).toBe(started[2]?.id);
  });
});
