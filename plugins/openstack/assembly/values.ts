// Values as Go parses them for OCCM: gcfg's booleans and integers, time.ParseDuration's durations, and the
// comma-separated `key=value` lists of cpoutil.StringToMap.

/** gcfg's booleans: true/yes/on/1 and false/no/off/0 in any case; -1 for anything else. */
export function parseBool(value: string): i32 {
  const v = value.toLowerCase();
  if (v == "true" || v == "yes" || v == "on" || v == "1") return 1;
  if (v == "false" || v == "no" || v == "off" || v == "0") return 0;
  return -1;
}

/** What parseInteger answers for a value that is not an integer in range. */
export const NOT_AN_INTEGER: i64 = i64.MIN_VALUE;

/** A decimal integer with an optional sign within [min, max]; NOT_AN_INTEGER otherwise (no spaces, no hex). */
export function parseInteger(value: string, min: i64, max: i64): i64 {
  let i = value.startsWith("-") || value.startsWith("+") ? 1 : 0;
  if (i == value.length || value.length - i > 18) return NOT_AN_INTEGER;
  let n: i64 = 0;
  for (; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return NOT_AN_INTEGER;
    n = n * 10 + <i64>(c - 0x30);
  }
  if (value.startsWith("-")) n = -n;
  return n < min || n > max ? NOT_AN_INTEGER : n;
}

const UNITS = ["ns", "us", "µs", "μs", "ms", "s", "m", "h"];
const UNIT_MS: f64[] = [0.000001, 0.001, 0.001, 0.001, 1, 1000, 60000, 3600000];

/** Go's time.ParseDuration ("5s", "1m30s", "1.5h", "300ms", "0") in milliseconds; NaN when it is not one. */
export function parseDurationMs(value: string): f64 {
  let s = value;
  let sign: f64 = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s.startsWith("-")) sign = -1;
    s = s.substring(1);
  }
  if (s == "0") return 0;
  if (s.length == 0) return NaN;
  let total: f64 = 0;
  let i = 0;
  while (i < s.length) {
    const start = i;
    while (i < s.length && (isDigit(s.charCodeAt(i)) || s.charCodeAt(i) == 0x2e)) i++;
    const number = s.substring(start, i);
    if (number.length == 0 || number == "." || number.indexOf(".") != number.lastIndexOf(".")) return NaN;
    const unitStart = i;
    while (i < s.length && !isDigit(s.charCodeAt(i)) && s.charCodeAt(i) != 0x2e) i++;
    const unit = UNITS.indexOf(s.substring(unitStart, i));
    if (unit < 0) return NaN;
    total += parseFloat(number) * UNIT_MS[unit];
  }
  return sign * total;
}

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

/**
 * "k1=v1,k2=v2,k3=,k4" into a map, as cpoutil.StringToMap reads OCCM's node-selector: pairs split on commas and
 * trimmed, a key without `=` (or with an empty value) meaning "has the label, any value".
 */
export function keyValueMap(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = text.trimStart().trimEnd().split(",");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i].trimStart().trimEnd();
    const eq = part.indexOf("=");
    const key = eq < 0 ? part : part.substring(0, eq);
    if (key == "") continue;
    out.set(key, eq < 0 ? "" : part.substring(eq + 1));
  }
  return out;
}

/** Comma- or space-separated items, empty ones dropped (cpoutil.SplitTrim). */
export function splitList(text: string): string[] {
  const out: string[] = [];
  let item = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c == "," || c == " " || c == "\t" || c == "\n") {
      if (item.length > 0) out.push(item);
      item = "";
    } else {
      item += c;
    }
  }
  if (item.length > 0) out.push(item);
  return out;
}
