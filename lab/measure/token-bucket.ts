// How many tokens a client-side rate limiter (client-go's token bucket: `qps` tokens a second, at most `burst` kept)
// let go to waste while writes were seen at given times: each write takes a token, and whatever the bucket refills
// while it is already full is lost for good. A CCM whose writes are bounded by its limiter (a burst of Services: four
// writes each) ends later by lost/qps seconds, so the number says what a burst's quiet stretches cost, apart from the
// noise of the end time. Writes are replayed as seen from outside (a watch), which shifts them all by its delay.
// The replay runs through the CCM's own bucket (host/src/kube/token-bucket.ts) on a clock set to each write's time.
import type { Clock } from '../../host/src/kube/clock.ts';
import { TokenBucket } from '../../host/src/kube/token-bucket.ts';

/**
 * Tokens lost between `start` and the last write, for a bucket full at `start` (a controller's client that was idle
 * before). Times in ms on one clock; writes before `start` are ignored.
 */
export function tokensLost(writes: readonly number[], start: number, qps: number, burst: number): number {
  if (!(qps > 0) || !(burst >= 1)) throw new RangeError(`qps must be > 0 and burst >= 1 (got ${qps}, ${burst})`);
  const times = writes.filter((t) => t >= start).sort((a, b) => a - b);
  let now = start;
  const replay: Clock = {
    now: () => now,
    setTimer: () => {
      throw new Error('a replayed bucket never waits');
    },
  };
  const bucket = new TokenBucket(qps, burst, replay);
  for (const at of times) {
    now = at;
    bucket.reserve();
  }
  // What the bucket would hold had it kept every refill, less what it holds: the refills a full bucket dropped.
  return burst + ((now - start) / 1000) * qps - times.length - bucket.available();
}
