// --controller-start-interval: upstream starts controllers one after another, waiting wait.Jitter(interval, 1.0)
// (a random time between the interval and twice it) between two starts. Every item runs until it returns; the
// returned promise settles when all have, or at once for those not yet started when `signal` aborts.
import { type Clock, realClock, sleep } from '../kube/clock.ts';

export async function startStaggered<T>(
  items: readonly T[],
  intervalMs: number,
  signal: AbortSignal,
  run: (item: T) => Promise<void>,
  clock: Clock = realClock,
): Promise<void> {
  const running: Promise<void>[] = [];
  for (const [i, item] of items.entries()) {
    if (i > 0 && intervalMs > 0) await sleep(clock, intervalMs * (1 + Math.random()), signal);
    if (signal.aborted) break;
    running.push(run(item));
  }
  await Promise.all(running);
}
