import { describe, expect, it } from 'vitest';
import { tokensLost } from '../../../lab/measure/index.ts';

describe('tokensLost', () => {
  it('counts the whole refill while a full bucket waits for its first write', () => {
    // Full at 0, nothing until 100 ms at 200/s: 20 tokens refilled into a full bucket.
    expect(tokensLost([100], 0, 200, 400)).toBeCloseTo(20);
  });

  it('loses nothing while writes keep pace with the refill', () => {
    const writes = Array.from({ length: 200 }, (_, i) => 5 * (i + 1)); // one every 5 ms at 200/s
    expect(tokensLost(writes, 0, 200, 400)).toBeCloseTo(1); // only the first 5 ms before the first write
  });

  it('loses nothing once the bucket is drained, however long the writes wait', () => {
    // 400 writes at once empty it; 100 more at 200/s arrive exactly as tokens come back.
    const writes = [...Array.from({ length: 400 }, () => 0), ...Array.from({ length: 100 }, (_, i) => 5 * (i + 1))];
    expect(tokensLost(writes, 0, 200, 400)).toBeCloseTo(0);
  });

  it('counts a quiet stretch after the bucket has refilled, not before', () => {
    // 10 writes at 0 leave 390; refilled by 50 ms; quiet until 150 ms: 100 ms at 200/s lost.
    const writes = [...Array.from({ length: 10 }, () => 0), 150];
    expect(tokensLost(writes, 0, 200, 400)).toBeCloseTo(20);
  });

  it('ignores writes before the start and sorts the rest', () => {
    expect(tokensLost([100, -50, 50], 0, 200, 400)).toBeCloseTo(tokensLost([50, 100], 0, 200, 400));
  });

  it('refuses a limiter that cannot be', () => {
    expect(() => tokensLost([], 0, 0, 400)).toThrow(RangeError);
    expect(() => tokensLost([], 0, 200, 0)).toThrow(RangeError);
  });
});
