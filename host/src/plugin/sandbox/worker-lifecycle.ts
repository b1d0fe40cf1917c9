// Node.js can crash the whole process (SIGSEGV) when a worker thread's isolate is set up while another worker is
// being torn down (nodejs/node#56312, open); the pool does both at once when it replaces an instance lost at its
// deadline. So plugin workers never start while one of ours is terminating, and are never terminated while one is
// starting. Each wait is bounded: a start runs the module's start function, so it is not sure to end soon.
//
// A termination counts as under way for at most STUCK_AFTER_MS. V8 stops a worker only where its code checks for
// interrupts; the runtime makes every loop a plugin can build check (module/engine-flags.ts,
// module/instruction-policy.ts), but a worker that still does not stop must not hold up every other instance and
// plugin of the process: it is counted as stuck (stuckWorkerCount(), the wasm_ccm_plugin_stuck_workers gauge) until
// it exits, and nothing waits for it. A stuck worker is still running its Wasm code, not being torn down, so a start
// meanwhile does not meet the crash above; its teardown, when V8 does stop it, is not guarded.
import type { Worker } from 'node:worker_threads';

const WAIT_BOUND_MS = 3_000;
export const STUCK_AFTER_MS = 1_000;
const terminating = new Set<Promise<unknown>>();
const starting = new Set<Promise<unknown>>();
const stuck = new Set<Pick<Worker, 'terminate'>>();

/** How a termination ended: the worker exited, or it was still running STUCK_AFTER_MS after terminate(). */
export type TerminationResult = 'exited' | 'stuck';

/** Workers asked to terminate that have not exited STUCK_AFTER_MS later, in the whole process. */
export function stuckWorkerCount(): number {
  return stuck.size;
}

function delay<T>(ms: number, value: T): { promise: Promise<T>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(value), ms);
    timer.unref();
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

async function settled(pending: ReadonlySet<Promise<unknown>>, boundMs: number): Promise<void> {
  if (pending.size === 0) return;
  const bound = delay(boundMs, undefined);
  await Promise.race([Promise.allSettled([...pending]), bound.promise]);
  bound.cancel();
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

/**
 * Terminates `worker` once the starts already under way are ready. Resolves 'exited' when it has exited, or 'stuck'
 * when it is still running `stuckAfterMs` after terminate() was called (it stays counted until it exits).
 */
export function terminateAfterStarts(
  worker: Pick<Worker, 'terminate'>,
  boundMs = WAIT_BOUND_MS,
  stuckAfterMs = STUCK_AFTER_MS,
): Promise<TerminationResult> {
  const result = settled(starting, boundMs).then(() => terminateWithin(worker, stuckAfterMs));
  track(terminating, result);
  return result;
}

async function terminateWithin(worker: Pick<Worker, 'terminate'>, stuckAfterMs: number): Promise<TerminationResult> {
  const exited = worker.terminate().then(
    () => 'exited' as const,
    () => 'exited' as const,
  );
  const timeout = delay(stuckAfterMs, 'stuck' as const);
  const outcome = await Promise.race([exited, timeout.promise]);
  timeout.cancel();
  if (outcome === 'stuck') {
    stuck.add(worker);
    void exited.then(() => stuck.delete(worker));
  }
  return outcome;
}
