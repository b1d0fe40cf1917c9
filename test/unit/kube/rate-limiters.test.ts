import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../support/fake-clock.ts';
import { TokenBucket } from '../../../host/src/kube/token-bucket.ts';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
} from '../../../host/src/kube/workqueue/rate-limiters.ts';
import { RateLimitingQueue } from '../../../host/src/kube/workqueue/rate-limiting.ts';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles per failure from base, per item, capped at max', () => {
    const r = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(() => r.when('a'))).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000]);
    expect(r.when('a')).toBe(1000);
    expect(r.numRequeues('a')).toBe(10);
    expect(r.when('b')).toBe(5);
    expect(r.numRequeues('b')).toBe(1);
  });

  it('forget starts an item over', () => {
    const r = new ItemExponentialFailureRateLimiter<string>(1, 100);
    r.when('a');
    r.when('a');
    r.forget('a');
    expect(r.numRequeues('a')).toBe(0);
    expect(r.when('a')).toBe(1);
  });

  it('stays at max after very many failures (no overflow to Infinity/NaN)', () => {
    const r = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    for (let i = 0; i < 2000; i++) r.when('a');
    expect(r.when('a')).toBe(1_000_000);
  });
});

describe('TokenBucket', () => {
  it('starts full with burst tokens, then spaces reservations by 1/qps', () => {
    const clock = new FakeClock();
    const b = new TokenBucket(10, 3, clock);
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0]);
    expect(b.reserve()).toBeCloseTo(100);
    expect(b.reserve()).toBeCloseTo(200);
    clock.step(200);
    expect(b.reserve()).toBeCloseTo(100);
  });

  it('refills at qps up to burst only', () => {
    const clock = new FakeClock();
    const b = new TokenBucket(2, 4, clock);
    for (let i = 0; i < 4; i++) b.reserve();
    clock.step(60_000);
    expect(b.available()).toBe(4);
    expect(b.tryAccept()).toBe(true);
    for (let i = 0; i < 3; i++) b.tryAccept();
    expect(b.tryAccept()).toBe(false);
    clock.step(500);
    expect(b.tryAccept()).toBe(true);
  });

  it('wait resolves after the reserved delay on the clock', async () => {
    const clock = new FakeClock();
    const b = new TokenBucket(1, 1, clock);
    expect(await b.wait()).toBe(0);
    let done = false;
    const waiting = b.wait().then(() => (done = true));
    await clock.advance(999);
    expect(done).toBe(false);
    await clock.advance(1);
    await waiting;
    expect(done).toBe(true);
  });

  it('rejects nonsensical settings', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(/qps/);
    expect(() => new TokenBucket(1, 0)).toThrow(/burst/);
    expect(() => new TokenBucket(1, 1.5)).toThrow(/burst/);
  });
});

describe('BucketRateLimiter and MaxOfRateLimiter', () => {
  it('bucket: shared by all items, no per-item history', () => {
    const clock = new FakeClock();
    const r = new BucketRateLimiter<string>(1, 2, clock);
    expect([r.when('a'), r.when('b'), r.when('c')]).toEqual([0, 0, 1000]);
    expect(r.numRequeues('a')).toBe(0);
  });

  it('max-of takes the longest answer and forwards forget to all', () => {
    const clock = new FakeClock();
    const exp = new ItemExponentialFailureRateLimiter<string>(100, 10_000);
    const bucket = new BucketRateLimiter<string>(1, 1, clock);
    const r = new MaxOfRateLimiter<string>(exp, bucket);
    expect(r.when('a')).toBe(100); // bucket says 0, exponential 100
    expect(r.when('a')).toBe(1000); // bucket in debt: 1000, exponential 200
    expect(r.numRequeues('a')).toBe(2);
    r.forget('a');
    expect(exp.numRequeues('a')).toBe(0);
    expect(() => new MaxOfRateLimiter<string>()).toThrow();
  });

  it('the controller default is exponential 5 ms .. 1000 s combined with 10 qps / burst 100', () => {
    const clock = new FakeClock();
    const r = defaultControllerRateLimiter<string>(clock);
    expect([r.when('a'), r.when('a'), r.when('a')]).toEqual([5, 10, 20]);
    for (let i = 0; i < 40; i++) r.when('a');
    expect(r.when('a')).toBe(1_000_000);
    // 100 distinct items: 44 tokens already spent above, so 56 more are free, then 100 ms apart.
    const delays = Array.from({ length: 58 }, (_, i) => r.when(`item-${i}`));
    expect(delays.slice(0, 56).every((d) => d === 5)).toBe(true);
    expect(delays[56]).toBeCloseTo(100);
    expect(delays[57]).toBeCloseTo(200);
  });
});

describe('RateLimitingQueue', () => {
  it('addRateLimited backs off exponentially per item; forget resets it', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter<string>(100, 1000),
    });
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(1);
    clock.step(99);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    const r = await q.get();
    expect(r.item).toBe('a');
    q.addRateLimited('a'); // failed again while processing: 200 ms
    q.done('a');
    clock.step(199);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    await q.get();
    q.done('a');
    q.addRateLimited('a');
    clock.step(100);
    expect(q.len()).toBe(1);
  });

  it('uses the controller default limiter on its own clock when none is given', () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.addRateLimited('a');
    clock.step(4);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
  });
});

describe('WithMaxWaitRateLimiter', () => {
  it("caps another limiter's wait, as client-go's does", () => {
    const clock = new FakeClock();
    const limiter = new WithMaxWaitRateLimiter<string>(new BucketRateLimiter<string>(0.1, 1, clock), 10_000);
    expect(limiter.when('routes')).toBe(0);
    expect(limiter.when('routes')).toBe(10_000);
    // The bucket's own answer would keep growing (20 s, 30 s ...): the cap holds it at 10 s.
    expect(limiter.when('routes')).toBe(10_000);
    expect(limiter.numRequeues('routes')).toBe(0);
  });
});
