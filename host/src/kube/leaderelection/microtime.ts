// metav1.MicroTime on the wire: RFC 3339 with exactly six fractional digits, always UTC ("...T10:00:00.123000Z").
// The apiserver rejects nothing else in Lease times in practice, but readers meet every form: the Go client
// writes 6 digits, some tools 9 or none, and client-node hands back strings from some paths and Date objects
// from others. Reading accepts all of them.

/** Formats epoch milliseconds (or a Date) as a MicroTime string. */
export function formatMicroTime(time: number | Date): string {
  const ms = typeof time === 'number' ? time : time.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`formatMicroTime: not a time: ${String(time)}`);
  const iso = new Date(Math.floor(ms)).toISOString(); // 2026-01-01T00:00:00.123Z
  const micros = Math.floor((ms - Math.floor(ms)) * 1000)
    .toString()
    .padStart(3, '0');
  return `${iso.slice(0, -1)}${micros}Z`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/**
 * Epoch milliseconds (with sub-millisecond fraction) of a Kubernetes Time or MicroTime, from a string in any
 * RFC 3339 form or a Date; undefined for anything unreadable (treated by callers as "no time").
 */
export function parseKubeTime(value: unknown): number | undefined {
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isFinite(ms) ? ms : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const m = RFC3339.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = m;
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (!Number.isFinite(base)) return undefined;
  const fraction = frac ? Number(`0.${frac}`) * 1000 : 0;
  const offset = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  return base + fraction - offset;
}
