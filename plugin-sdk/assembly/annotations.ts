// Strict reading of Service and Node annotation values. Upstream providers parse annotations with Go's strconv, which
// accepts exactly a number: no spaces, no trailing text, no hex. So do these, and a value they refuse becomes an
// Invalid error naming the annotation and the value, which the service controller shows as an Event on the Service.
import { PluginError, invalid } from "./errors";

/** An annotation read as a number: `value` (the fallback when absent), or `error` when present but not acceptable. */
export class AnnotationNumber<T> {
  value: T;
  /** Whether the annotation was set (an empty value counts as set, and is refused). */
  present: bool = false;
  error: PluginError | null = null;

  constructor(value: T) {
    this.value = value;
  }
}

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

function digitsFrom(text: string, at: i32): i32 {
  let i = at;
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  return i;
}

/** Whether `text` is a decimal integer: an optional sign and at least one digit, nothing else. */
export function isStrictInteger(text: string): bool {
  let i = 0;
  if (text.length > 0 && (text.charCodeAt(0) == 0x2d || text.charCodeAt(0) == 0x2b)) i = 1;
  const end = digitsFrom(text, i);
  return end > i && end == text.length;
}

/** Whether `text` is a decimal number: sign, digits, an optional fraction and exponent (no "inf", "nan", hex, ".5"). */
export function isStrictFloat(text: string): bool {
  let i = 0;
  if (text.length > 0 && (text.charCodeAt(0) == 0x2d || text.charCodeAt(0) == 0x2b)) i = 1;
  let end = digitsFrom(text, i);
  if (end == i) return false;
  if (end < text.length && text.charCodeAt(end) == 0x2e) {
    const fraction = digitsFrom(text, end + 1);
    if (fraction == end + 1) return false;
    end = fraction;
  }
  if (end < text.length && (text.charCodeAt(end) == 0x65 || text.charCodeAt(end) == 0x45)) {
    let e = end + 1;
    if (e < text.length && (text.charCodeAt(e) == 0x2d || text.charCodeAt(e) == 0x2b)) e++;
    const exponent = digitsFrom(text, e);
    if (exponent == e) return false;
    end = exponent;
  }
  return end == text.length;
}

// The integer value of a strict integer, or null past i64's range.
function parseI64(text: string): i64 {
  const negative = text.charCodeAt(0) == 0x2d;
  const start = text.charCodeAt(0) == 0x2d || text.charCodeAt(0) == 0x2b ? 1 : 0;
  let value: i64 = 0;
  for (let i = start; i < text.length; i++) {
    const digit = <i64>(text.charCodeAt(i) - 0x30);
    // Accumulate as a negative number: i64's range has one more negative value than positive ones.
    if (value < (i64.MIN_VALUE + digit) / 10) return i64.MIN_VALUE;
    value = value * 10 - digit;
  }
  if (!negative && value == i64.MIN_VALUE) return i64.MIN_VALUE;
  return negative ? value : -value;
}

function refuse<T>(out: AnnotationNumber<T>, name: string, value: string, why: string): AnnotationNumber<T> {
  out.error = invalid("annotation " + name + ': "' + value + '" ' + why);
  return out;
}

/**
 * The annotation `name` as an integer in [min, max]; `fallback` when it is absent. A value with anything but an
 * optional sign and digits, or out of range, gives an Invalid error naming the annotation.
 */
export function annotationInt(
  annotations: Map<string, string>,
  name: string,
  fallback: i64,
  min: i64 = i64.MIN_VALUE + 1,
  max: i64 = i64.MAX_VALUE,
): AnnotationNumber<i64> {
  const out = new AnnotationNumber<i64>(fallback);
  if (!annotations.has(name)) return out;
  out.present = true;
  const text = annotations.get(name);
  if (!isStrictInteger(text)) return refuse(out, name, text, "is not an integer");
  const value = parseI64(text);
  if (value == i64.MIN_VALUE || value < min || value > max) {
    return refuse(out, name, text, "is out of range [" + min.toString() + ", " + max.toString() + "]");
  }
  out.value = value;
  return out;
}

/**
 * The annotation `name` as a finite number in [min, max]; `fallback` when it is absent. Anything but a plain decimal
 * number (with an optional fraction and exponent), or out of range, gives an Invalid error naming the annotation.
 */
export function annotationFloat(
  annotations: Map<string, string>,
  name: string,
  fallback: f64,
  min: f64 = -f64.MAX_VALUE,
  max: f64 = f64.MAX_VALUE,
): AnnotationNumber<f64> {
  const out = new AnnotationNumber<f64>(fallback);
  if (!annotations.has(name)) return out;
  out.present = true;
  const text = annotations.get(name);
  if (!isStrictFloat(text)) return refuse(out, name, text, "is not a number");
  const value = F64.parseFloat(text);
  if (!isFinite(value) || value < min || value > max) {
    return refuse(out, name, text, "is out of range [" + min.toString() + ", " + max.toString() + "]");
  }
  out.value = value;
  return out;
}
