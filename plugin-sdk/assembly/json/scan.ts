// The byte-level scanners behind JsonReader: numbers, and strings that need unescaping or UTF-8 decoding by hand.
// They report where they stopped and what they expected instead of failing, so the reader words the error.
import { decimalToF64 } from "./decimal";

export class NumberScan {
  value: f64 = 0;
  next: usize = 0;
  /** What was expected where the scan stopped (`next`), or null. */
  problem: string | null = null;
}

export class StringScan {
  value: string = "";
  next: usize = 0;
  problem: string | null = null;
}

@inline function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

/**
 * Scans a number starting at `p` (a '-' or a digit) per the JSON grammar. Plain integers of up to 15 digits are
 * computed exactly here; anything else is converted by decimalToF64, correctly rounded.
 */
export function scanNumber(start: usize, end: usize): NumberScan {
  const out = new NumberScan();
  let p = start;
  let neg = false;
  if (load<u8>(p) == 0x2d) {
    neg = true;
    p++;
  }
  const digits = p;
  let acc: i64 = 0;
  if (p < end && load<u8>(p) == 0x30) {
    p++;
  } else if (p < end && load<u8>(p) >= 0x31 && load<u8>(p) <= 0x39) {
    while (p < end && isDigit(load<u8>(p))) {
      if (p - digits < 16) acc = acc * 10 + <i64>(load<u8>(p) - 0x30);
      p++;
    }
  } else {
    out.next = p;
    out.problem = "a digit";
    return out;
  }
  const intEnd = p;
  let fracStart = p;
  let fracEnd = p;
  let exp: i32 = 0;
  let simple = p - digits <= 15;
  if (p < end && load<u8>(p) == 0x2e) {
    simple = false;
    p++;
    fracStart = p;
    while (p < end && isDigit(load<u8>(p))) p++;
    fracEnd = p;
    if (p == fracStart) {
      out.next = p;
      out.problem = "a digit after the decimal point";
      return out;
    }
  }
  if (p < end && (load<u8>(p) | 0x20) == 0x65) {
    simple = false;
    p++;
    let expNeg = false;
    if (p < end && (load<u8>(p) == 0x2b || load<u8>(p) == 0x2d)) expNeg = load<u8>(p++) == 0x2d;
    const e = p;
    // Saturates far beyond any f64 (1e-400 is 0, 1e400 Infinity) so a long exponent cannot overflow.
    while (p < end && isDigit(load<u8>(p))) {
      if (exp < 1000000) exp = exp * 10 + <i32>(load<u8>(p) - 0x30);
      p++;
    }
    if (p == e) {
      out.next = p;
      out.problem = "a digit in the exponent";
      return out;
    }
    if (expNeg) exp = -exp;
  }
  out.next = p;
  const magnitude = simple ? <f64>acc : decimalToF64(digits, intEnd, fracStart, fracEnd, exp);
  out.value = neg ? -magnitude : magnitude;
  return out;
}

// Short strings repeat across a document: a node list repeats its field names, label keys, most label values and the
// address types in every node. A direct-mapped table of the last short ASCII strings seen hands out the same
// (immutable) string again instead of allocating and widening a new one; a slot holds whatever string hashed to it
// last. Profiling a 1,000-node EnsureLoadBalancer request showed allocation and GC as the largest part of decoding.
const INTERN_SLOTS: u32 = 1024; // a power of two
const INTERN_MAX_BYTES: usize = 48;
const interned = new StaticArray<string | null>(<i32>INTERN_SLOTS);

// FNV-1a over the bytes: hash = (hash ^ byte) * FNV_PRIME from FNV_OFFSET.
export const FNV_OFFSET: u32 = 0x811c9dc5;
export const FNV_PRIME: u32 = 0x01000193;

/**
 * Whether `s` is a string rather than null. By address: on a string, `!== null` calls its `!=` operator
 * (String.__ne), which the readers would otherwise do for every key and every string they read.
 */
@inline export function present(s: string | null): bool {
  return changetype<usize>(s) != 0;
}

/**
 * The string of `n` ASCII bytes at `p` (the caller has checked they are ASCII), interned when short. `hash` is the
 * FNV-1a hash of the bytes (the reader computes it while it looks for the closing quote).
 */
export function asciiString(p: usize, n: usize, hash: u32): string {
  if (n > INTERN_MAX_BYTES) return widen(p, n);
  const slot = <i32>(hash & (INTERN_SLOTS - 1));
  const cached = unchecked(interned[slot]);
  if (present(cached) && sameAscii(changetype<string>(cached), p, n)) return changetype<string>(cached);
  const fresh = widen(p, n);
  unchecked((interned[slot] = fresh));
  return fresh;
}

function sameAscii(s: string, p: usize, n: usize): bool {
  if (<usize>s.length != n) return false;
  const units = changetype<usize>(s);
  for (let i: usize = 0; i < n; i++) {
    if (load<u16>(units + (i << 1)) != <u16>load<u8>(p + i)) return false;
  }
  return true;
}

// ASCII bytes to UTF-16 units, one for one (String.UTF8.decode would size for the worst case and shrink after).
function widen(p: usize, n: usize): string {
  const out = changetype<string>(__new(n << 1, idof<string>()));
  const units = changetype<usize>(out);
  for (let i: usize = 0; i < n; i++) store<u16>(units + (i << 1), <u16>load<u8>(p + i));
  return out;
}

// UTF-16 units of the string being decoded; kept between calls so most strings need no allocation here.
let scratch = new Uint16Array(64);

// Units in scratch so far, for the string being decoded.
let filled: i32 = 0;

function pushUnit(unit: u32): void {
  const n = filled;
  if (n >= scratch.length) {
    const grown = new Uint16Array(scratch.length << 1);
    memory.copy(grown.dataStart, scratch.dataStart, <usize>n << 1);
    scratch = grown;
  }
  unchecked((scratch[n] = <u16>unit));
  filled = n + 1;
}

function hexDigit(c: u32): i32 {
  if (c >= 0x30 && c <= 0x39) return <i32>(c - 0x30);
  if (c >= 0x61 && c <= 0x66) return <i32>(c - 0x57);
  if (c >= 0x41 && c <= 0x46) return <i32>(c - 0x37);
  return -1;
}

function hex4(p: usize): i32 {
  let v = 0;
  for (let i: usize = 0; i < 4; i++) {
    const d = hexDigit(<u32>load<u8>(p + i));
    if (d < 0) return -1;
    v = (v << 4) | d;
  }
  return v;
}

function stop(out: StringScan, at: usize, problem: string): StringScan {
  out.next = at;
  out.problem = problem;
  return out;
}

/**
 * Decodes the string whose content starts at `s` (after the opening quote) up to its closing quote: escapes, UTF-8 to
 * UTF-16, invalid UTF-8 as U+FFFD. `next` is just past the closing quote.
 */
export function scanEscapedString(s: usize, end: usize): StringScan {
  const out = new StringScan();
  let p = s;
  filled = 0;
  while (true) {
    if (p >= end) return stop(out, p, "closing quote of a string");
    const c = <u32>load<u8>(p);
    if (c == 0x22) {
      out.next = p + 1;
      out.value = String.UTF16.decodeUnsafe(scratch.dataStart, <usize>filled << 1);
      return out;
    }
    if (c < 0x20) return stop(out, p, "no raw control characters in a string");
    if (c == 0x5c) {
      if (p + 1 >= end) return stop(out, p, "an escape");
      const e = <u32>load<u8>(p + 1);
      if (e == 0x22 || e == 0x5c || e == 0x2f) pushUnit(e);
      else if (e == 0x6e) pushUnit(0x0a);
      else if (e == 0x74) pushUnit(0x09);
      else if (e == 0x72) pushUnit(0x0d);
      else if (e == 0x62) pushUnit(0x08);
      else if (e == 0x66) pushUnit(0x0c);
      else if (e == 0x75) {
        const u = p + 6 <= end ? hex4(p + 2) : -1;
        if (u < 0) return stop(out, p + 2, "four hex digits after \\u");
        // Surrogate pairs arrive as two escapes; UTF-16 stores them as they are, lone ones included.
        pushUnit(<u32>u);
        p += 4;
      } else return stop(out, p, "a valid escape");
      p += 2;
      continue;
    }
    if (c < 0x80) {
      pushUnit(c);
      p++;
      continue;
    }
    p = pushUtf8(p, end);
  }
}

// Decodes the UTF-8 sequence at p (its first byte is not ASCII) onto scratch and returns where the next sequence
// starts. An invalid sequence becomes one U+FFFD per maximal subpart, as WHATWG decoders (TextDecoder) do: a lead
// byte that cannot start a sequence is one U+FFFD; a valid start cut short by a byte that cannot continue it is
// one U+FFFD, and decoding resumes at that byte. The ranges of the second byte exclude overlong forms, surrogates
// and code points past U+10FFFF.
function pushUtf8(p: usize, end: usize): usize {
  const c = <u32>load<u8>(p);
  let need = 0;
  let cp: u32 = 0;
  let lower: u32 = 0x80;
  let upper: u32 = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    need = 1;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    cp = c & 0x0f;
    if (c == 0xe0) lower = 0xa0;
    else if (c == 0xed) upper = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    cp = c & 0x07;
    if (c == 0xf0) lower = 0x90;
    else if (c == 0xf4) upper = 0x8f;
  } else {
    pushUnit(0xfffd);
    return p + 1;
  }
  let q = p + 1;
  for (let i = 0; i < need; i++) {
    const b = q < end ? <u32>load<u8>(q) : 0;
    if (q >= end || b < lower || b > upper) {
      pushUnit(0xfffd);
      return q;
    }
    cp = (cp << 6) | (b & 0x3f);
    lower = 0x80;
    upper = 0xbf;
    q++;
  }
  if (cp >= 0x10000) {
    cp -= 0x10000;
    pushUnit(0xd800 + (cp >> 10));
    pushUnit(0xdc00 + (cp & 0x3ff));
  } else {
    pushUnit(cp);
  }
  return q;
}

/**
 * The UTF-8 bytes [p, end) as a string, invalid sequences as U+FFFD. (String.UTF8.decode reads past a bad lead
 * byte into the bytes after it.)
 */
export function decodeUtf8(p: usize, end: usize): string {
  filled = 0;
  while (p < end) {
    const c = <u32>load<u8>(p);
    if (c < 0x80) {
      pushUnit(c);
      p++;
    } else {
      p = pushUtf8(p, end);
    }
  }
  return String.UTF16.decodeUnsafe(scratch.dataStart, <usize>filled << 1);
}
