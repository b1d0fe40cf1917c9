// The time of a record to the microsecond, as klog's header prints it. Date.now() has milliseconds only; the
// monotonic performance clock has the fraction. Its offset to the wall clock is taken again whenever the two part
// by a millisecond or more (the wall clock was set, or the two drifted), so the printed time stays the wall clock's.
let offsetMs = performance.timeOrigin;

/** Microseconds since the epoch, an integer. */
export function wallClockMicros(): number {
  const wall = Date.now();
  const precise = performance.now() + offsetMs;
  if (precise >= wall && precise < wall + 1) return Math.floor(precise * 1000);
  offsetMs = wall - performance.now();
  return wall * 1000;
}
