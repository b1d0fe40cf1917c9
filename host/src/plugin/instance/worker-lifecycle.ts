// Node.js can crash the whole process (SIGSEGV) when a worker thread's isolate is set up while another worker is
// being torn down (nodejs/node#56312, open); the pool does both at once when it replaces an instance lost at its
// deadline. So plugin workers never start while one of ours is terminating, and are never terminated while one is
// starting. Each wait is bounded: V8 acts on a termination only at certain points, and a start runs the module's
// start function, so neither is sure to end soon; past the bound the operation goes ahead, as before this guard.
import type { Worker } from 'node:worker_threads';

const WAIT_BOUND_MS = 3_000;
const terminating = new Set<Promise<unknown>>();
const starting = new Set<Promise<unknown>>();

async function settled(pending: ReadonlySet<Promise<unknown>>, boundMs: number): Promise<void> {
  if (pending.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, boundMs);
    timer.unref();
  });
  await Promise.race([Promise.allSettled([...pending]), bound]);
  clearTimeout(timer);
}

function track(set: Set<Promise<unknown>>, operation: Promise<unknown>): void {
  set.add(operation);
  void operation.then(
    () => set.delete(operation),
    () => set.delete(operation),
  );
}

/**
 * Runs `start` (a worker's start until it is ready) once the terminations already under way have ended. It counts as
 * starting from this call on, so a termination asked for meanwhile waits for it.
 */
export function startAfterTerminations<T>(start: () => Promise<T>, boundMs = WAIT_BOUND_MS): Promise<T> {
  const started = settled(terminating, boundMs).then(start);
  track(starting, started);
  return started;
}

/** Terminates `worker` once the starts already under way are ready; resolves when it has exited. */
export async function terminateAfterStarts(worker: Pick<Worker, 'terminate'>, boundMs = WAIT_BOUND_MS): Promise<void> {
  const stopped = settled(starting, boundMs).then(() => worker.terminate());
  track(terminating, stopped);
  await stopped;
}
