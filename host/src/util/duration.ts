// Go's time.ParseDuration syntax ("300ms", "1.5h", "2h45m"), because upstream flags are written that way.
const UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration into milliseconds; throws with the offending text on a bad value. */
export function parseDuration(text: string): number {
  const input = text.trim();
  if (input === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let sign = 1;
  let pos = 0;
  if (input.startsWith('-') || input.startsWith('+')) {
    sign = input.startsWith('-') ? -1 : 1;
    pos = 1;
  }
  if (pos >= input.length) throw new Error(`invalid duration "${text}"`);
  while (pos < input.length) {
    re.lastIndex = pos;
    const m = re.exec(input);
    if (!m) throw new Error(`invalid duration "${text}" (expected e.g. 300ms, 5s, 1m30s)`);
    total += Number(m[1]) * (UNITS_MS[m[2] as string] as number);
    pos = re.lastIndex;
  }
  return sign * total;
}

/** Formats milliseconds the way Go prints durations, for --help defaults. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  const h = Math.floor(rest / 3_600_000);
  if (h) parts.push(`${h}h`);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  if (m) parts.push(`${m}m`);
  rest -= m * 60_000;
  if (rest >= 1000 || (rest > 0 && parts.length > 0)) parts.push(`${rest / 1000}s`);
  else if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}

/** Formats milliseconds exactly as Go's time.Duration.String does ("0s", "500ms", "1.5s", "5m0s", "12h0m0s"). */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) {
    if (rest >= 1) return `${sign}${decimal(rest)}ms`;
    if (rest >= 1e-3) return `${sign}${decimal(rest * 1e3)}µs`;
    return `${sign}${decimal(rest * 1e6)}ns`;
  }
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${decimal(rest / 1000)}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}

// Nanosecond precision at most, without the float noise of a division (0.30000000000000004).
const decimal = (n: number): string => String(Number(n.toFixed(9)));
