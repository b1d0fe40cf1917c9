// Wall-clock time: the sandbox has no WASI clock, so the host supplies it (ccm_now_ms).
import { ccm_now_ms } from "./host/imports";

/** Milliseconds since the Unix epoch. */
export function nowMs(): i64 {
  return ccm_now_ms();
}

/** Seconds since the Unix epoch, with millisecond precision. */
export function nowSeconds(): f64 {
  return <f64>ccm_now_ms() / 1000.0;
}
