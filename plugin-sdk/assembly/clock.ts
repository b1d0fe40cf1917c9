// Wall-clock time and pauses: the sandbox has no WASI clock, so the host supplies both (ccm_now_ms, ccm_sleep_ms).
import { ccm_now_ms, ccm_sleep_ms } from "./host/imports";

/** The longest pause one sleepMs call takes (the host's cap). */
export const MAX_SLEEP_MS: i32 = 60_000;

/** Milliseconds since the Unix epoch. */
export function nowMs(): i64 {
  return ccm_now_ms();
}

/** Seconds since the Unix epoch, with millisecond precision. */
export function nowSeconds(): f64 {
  return <f64>ccm_now_ms() / 1000.0;
}

/**
 * Pauses this instance for `ms` milliseconds (at most MAX_SLEEP_MS; 0 or less returns at once) without using CPU:
 * for polling a cloud between attempts. The call's deadline still runs: a pause past it ends the call with Timeout.
 * Needs a host of ABI 1.4 or later.
 */
export function sleepMs(ms: i32): void {
  if (ms <= 0) return;
  ccm_sleep_ms(min(ms, MAX_SLEEP_MS));
}
