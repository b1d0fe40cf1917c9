// Plugin workers never start while one is terminating, nor are terminated while one is starting (nodejs/node#56312:
// the process can crash when an isolate is set up while another is torn down); each wait is bounded.
import { describe, expect, it } from 'vitest';
import {
  startAfterTerminations,
  stuckWorkerCount,
  terminateAfterStarts,
} from '../../../host/src/plugin/sandbox/worker-lifecycle.ts';

function deferred(): { promise: Promise<number>; resolve: (code: number) => void } {
  let resolve: (code: number) => void = () => {};
  const promise = new Promise<number>((r) => (resolve = r));
  return { promise, resolve };
}

describe('worker lifecycle guard', () => {
  it('starts a worker only after a termination under way has ended', async () => {
    const order: string[] = [];
    const exit = deferred();
    const stopping = terminateAfterStarts({ terminate: () => (order.push('terminate'), exit.promise) });
    const started = startAfterTerminations(async () => void order.push('start'));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['terminate']);
    order.push('exited');
    exit.resolve(1);
    await Promise.all([stopping, started]);
    expect(order).toEqual(['terminate', 'exited', 'start']);
  });

  it('terminates a worker only after a start under way is ready', async () => {
    const order: string[] = [];
    const ready = deferred();
    const starting = startAfterTerminations(() => (order.push('start'), ready.promise));
    const stopping = terminateAfterStarts({ terminate: async () => (order.push('terminate'), 0) });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['start']);
    order.push('ready');
    ready.resolve(0);
    await Promise.all([starting, stopping]);
    expect(order).toEqual(['start', 'ready', 'terminate']);
  });

  it('goes ahead after the bound when the other operation never ends', async () => {
    const never = new Promise<number>(() => {});
    const stopping = terminateAfterStarts({ terminate: () => never }, 50, 50);
    let started = false;
    await startAfterTerminations(async () => void (started = true), 50);
    expect(started).toBe(true);
    expect(await stopping).toBe('stuck');
  });

  it('counts a worker that does not exit as stuck, and later starts do not wait for it', async () => {
    let exit: (code: number) => void = () => {};
    const running = new Promise<number>((resolve) => (exit = resolve));
    const result = await terminateAfterStarts({ terminate: () => running }, 50, 100);
    expect(result).toBe('stuck');
    const stuckNow = stuckWorkerCount();
    expect(stuckNow).toBeGreaterThanOrEqual(1);
    // The bound of a start's wait is far above the stuck time: a start must not wait for the stuck worker at all.
    const started = performance.now();
    await startAfterTerminations(async () => undefined, 60_000);
    expect(performance.now() - started).toBeLessThan(1000);
    exit(0);
    await expect.poll(() => stuckWorkerCount()).toBe(stuckNow - 1);
  });

  it('reports a worker that exits in time as exited', async () => {
    expect(await terminateAfterStarts({ terminate: async () => 0 }, 50, 100)).toBe('exited');
  });
});
