// Time as the kube machinery sees it. Everything that waits or measures goes through a Clock so tests can drive
// time by hand (FakeClock) instead of sleeping.

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the Unix epoch; never goes backwards (see realClock). */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds unless cancelled. */
  setTimer(ms: number, fn: () => void): Timer;
}

// performance.now() is monotonic (a stepped wall clock cannot make delays negative or fire timers early);
// adding timeOrigin keeps values comparable to Date.now() for timestamps written to the apiserver.
export const realClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
};

/** Resolves after `ms` on `clock`, or early (without rejecting) when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => {
      timer.cancel();
      resolve();
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
