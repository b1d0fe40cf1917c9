// Time within one call. Octavia refuses changes to a load balancer while it is PENDING_*, so OCCM waits for ACTIVE
// between steps: an exponential backoff from 1 s by a factor of 1.2, OCCM_WAIT_LB_ACTIVE_STEPS steps (23 by default,
// about 4.5 minutes). A plugin call has a deadline (10 s by default, and the host ends an instance that overruns it),
// so the waits of one call here share a budget: OCCM's wait for the configured number of steps, 5 by default (5.4 s).
// When it runs out the call answers Retry and the service controller calls again; every step is idempotent, so the
// next call carries on from what Octavia holds.
//
// A pause between polls is the host's sleep (ccm_sleep_ms): the instance's thread blocks without using CPU. Steps = 0
// waits not at all (OCCM fails at once then): every change that leaves the load balancer PENDING answers Retry.
import { nowMs, sleepMs } from "@wasm-ccm/plugin-sdk";

/** OCCM's steps that fit the host's default call deadline of 10 s. */
export const DEFAULT_WAIT_STEPS: i32 = 5;

let budgetMs: i64 = waitBudgetMs(DEFAULT_WAIT_STEPS);
let callStartedMs: i64 = 0;

/** How long OCCM waits in `steps` steps: `steps` polls with 1 s, 1.2 s, 1.44 s, ... between them. */
export function waitBudgetMs(steps: i32): i64 {
  let total: f64 = 0;
  let delay: f64 = 1000;
  for (let i = 1; i < steps; i++) {
    total += delay;
    delay *= 1.2;
  }
  return <i64>total;
}

export function setWaitSteps(steps: i32): void {
  budgetMs = waitBudgetMs(steps);
}

/** Marks the start of a call; its waits share the budget from here. */
export function startCall(): void {
  callStartedMs = nowMs();
}

export function remainingMs(): i64 {
  return budgetMs - (nowMs() - callStartedMs);
}

export function elapsedSeconds(): f64 {
  return <f64>(nowMs() - callStartedMs) / 1000.0;
}

/** Waits `ms` (less if the call's budget ends sooner). */
export function pause(ms: i64): void {
  const wait = min(ms, remainingMs());
  if (wait > 0) sleepMs(<i32>wait);
}
