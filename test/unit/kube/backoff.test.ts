import { describe, expect, it } from 'vitest';
import { Backoff } from '../../../host/src/kube/informer/backoff.ts';

describe('Backoff', () => {
  it('doubles from the initial delay up to the cap, and starts over on reset', () => {
    const b = new Backoff({ initialMs: 800, maxMs: 30_000, random: () => 0 });
    expect(Array.from({ length: 8 }, () => b.next())).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
    b.reset();
    expect(b.next()).toBe(800);
  });

  it('adds up to jitter x delay, never beyond the cap', () => {
    const high = new Backoff({ initialMs: 1000, maxMs: 5000, jitter: 1, random: () => 0.999 });
    expect(high.next()).toBeCloseTo(1999);
    expect(high.next()).toBeCloseTo(3998);
    expect(high.next()).toBe(5000);
    const spread = new Set(Array.from({ length: 20 }, () => new Backoff({ initialMs: 1000 }).next()));
    expect(spread.size).toBeGreaterThan(1); // real randomness spreads replicas
    for (const d of spread) expect(d).toBeGreaterThanOrEqual(1000);
  });
});
