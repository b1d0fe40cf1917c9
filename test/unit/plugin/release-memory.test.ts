import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryReleaser } from '../../../host/src/plugin/sandbox/release-memory.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('memory releaser', () => {
  it('runs one collection a while after a request, however many requests come meanwhile', async () => {
    vi.useFakeTimers();
    const collect = vi.fn(async () => {});
    const releaser = new MemoryReleaser({ collect, delayMs: 10_000, minIntervalMs: 60_000 });
    releaser.request();
    await vi.advanceTimersByTimeAsync(5_000);
    releaser.request();
    releaser.request();
    expect(collect).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(collect).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(releaser.runs).toBe(1);
  });

  it('keeps the minimum interval between collections', async () => {
    vi.useFakeTimers();
    const collect = vi.fn(async () => {});
    const releaser = new MemoryReleaser({ collect, delayMs: 10_000, minIntervalMs: 60_000 });
    releaser.request();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
    // 20 s after the first collection: the next one waits until 60 s after it, not just the 10 s delay.
    await vi.advanceTimersByTimeAsync(20_000);
    releaser.request();
    await vi.advanceTimersByTimeAsync(39_000);
    expect(collect).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(collect).toHaveBeenCalledTimes(2);
    // Long after: the plain delay again.
    await vi.advanceTimersByTimeAsync(120_000);
    releaser.request();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(collect).toHaveBeenCalledTimes(3);
  });

  it('survives a failing collection and can be cancelled', async () => {
    vi.useFakeTimers();
    const collect = vi.fn(async () => {
      throw new Error('no');
    });
    const releaser = new MemoryReleaser({ collect, delayMs: 1_000, minIntervalMs: 1_000 });
    releaser.request();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(collect).toHaveBeenCalledTimes(1);
    releaser.request();
    releaser.cancel();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
    releaser.request();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('by default runs V8’s memory-reducing GC, without leaving a global gc behind', async () => {
    const releaser = new MemoryReleaser({ delayMs: 0, minIntervalMs: 0 });
    const before = typeof (globalThis as { gc?: unknown }).gc;
    releaser.request();
    await vi.waitFor(() => expect(releaser.runs).toBe(1));
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe(before);
  });
});
