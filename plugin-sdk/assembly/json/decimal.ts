// Decimal digits to the nearest f64, correctly rounded (ties to even), as JSON.parse does. The standard library's
// parseFloat is not: the JSON fuzzer (npm run fuzz:json) found it off by one ulp (2.2250738585072011e-308,
// 5.079283847e45) and by powers of ten for mantissas of more than 19 digits (a 50-digit integer read as 6.7e40
// instead of 6.7e49). Common numbers take Clinger's exact fast path; the rest start from an approximation and are
// corrected by comparing the decimal value with the halfway points between neighbouring doubles in exact big-integer
// arithmetic, which only needs multiplication, shifts and comparison.

// Doubles halfway between two neighbours have at most 767 significant digits: keeping 800 and a sticky digit for the
// rest leaves the decimal value on the same side of every halfway point, so longer inputs round the same.
const MAX_DIGITS: i32 = 800;
const digitBuf = new StaticArray<u8>(MAX_DIGITS + 1);

// 1e0..1e22 are exact doubles: an integer of at most 53 bits times or divided by one of them rounds once, correctly.
const EXACT_POWERS: StaticArray<f64> = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
  1e21, 1e22,
];

/**
 * The magnitude of the number whose integer digits are [intStart, intEnd), fraction digits [fracStart, fracEnd)
 * (empty when there is none) and decimal exponent `exp` (already saturated far beyond f64's range).
 */
export function decimalToF64(intStart: usize, intEnd: usize, fracStart: usize, fracEnd: usize, exp: i32): f64 {
  let n = 0; // significant digits kept in digitBuf
  let e10 = exp; // the value is digitBuf's integer times 10^e10
  let dropped = false; // a nonzero digit past MAX_DIGITS
  for (let p = intStart; p < intEnd; p++) {
    const d = load<u8>(p) - 0x30;
    if (n == 0 && d == 0) continue;
    if (n < MAX_DIGITS) unchecked((digitBuf[n++] = d));
    else {
      if (d != 0) dropped = true;
      e10++;
    }
  }
  for (let p = fracStart; p < fracEnd; p++) {
    const d = load<u8>(p) - 0x30;
    if (n == 0 && d == 0) e10--;
    else if (n < MAX_DIGITS) {
      unchecked((digitBuf[n++] = d));
      e10--;
    } else if (d != 0) dropped = true;
  }
  if (dropped) {
    unchecked((digitBuf[n++] = 1));
    e10--;
  }
  while (n > 0 && unchecked(digitBuf[n - 1]) == 0) {
    n--;
    e10++;
  }
  if (n == 0) return 0;
  if (n + e10 > 310) return Infinity; // at least 1e310
  if (n + e10 < -324) return 0; // below 1e-325, under half the smallest subnormal
  const top = min(n, 19);
  let w: u64 = 0;
  for (let i = 0; i < top; i++) w = w * 10 + <u64>unchecked(digitBuf[i]);
  if (n == top && w <= 1 << 53 && e10 >= -22 && e10 <= 22) {
    return e10 >= 0 ? <f64>w * unchecked(EXACT_POWERS[e10]) : <f64>w / unchecked(EXACT_POWERS[-e10]);
  }
  return correct(approximate(w, e10 + (n - top)), n, e10);
}

// Within a few ulps of the value (Math.pow and two roundings); correct() finishes the job.
function approximate(w: u64, e10: i32): f64 {
  let x = <f64>w;
  if (e10 > 0) {
    x *= Math.pow(10, <f64>min(e10, 300));
    if (e10 > 300) x *= Math.pow(10, <f64>(e10 - 300));
  } else if (e10 < 0) {
    x /= Math.pow(10, <f64>min(-e10, 300));
    if (e10 < -300) x /= Math.pow(10, <f64>(-e10 - 300));
  }
  return x;
}

const MAX_FINITE_BITS: u64 = 0x7fefffffffffffff;

// Moves x one double at a time until the decimal value lies between its lower and upper halfway points.
function correct(approx: f64, n: i32, e10: i32): f64 {
  let bits = isFinite(approx) ? reinterpret<u64>(approx) : MAX_FINITE_BITS;
  const digits = bigFromDigits(n);
  while (true) {
    const biased = <i32>(bits >> 52);
    const m: u64 = biased == 0 ? bits : (bits & 0xfffffffffffff) | (1 << 52);
    const k: i32 = biased == 0 ? -1074 : biased - 1075; // the value is m * 2^k
    const odd = (m & 1) != 0;
    const up = compareScaled(digits, e10, 2 * m + 1, k - 1);
    if (up > 0 || (up == 0 && odd)) {
      if (bits == MAX_FINITE_BITS) return Infinity;
      bits++;
      continue;
    }
    if (m == 0) return 0;
    // Below a power of two the spacing halves, and so does the distance to the lower halfway point.
    const narrow = m == 1 << 52 && biased > 1;
    const down = narrow ? compareScaled(digits, e10, 4 * m - 1, k - 2) : compareScaled(digits, e10, 2 * m - 1, k - 1);
    if (down < 0 || (down == 0 && odd)) {
      bits--;
      continue;
    }
    return reinterpret<f64>(bits);
  }
}

// The sign of digits * 10^e10 - h * 2^e2, both sides scaled to integers.
function compareScaled(digits: u32[], e10: i32, h: u64, e2: i32): i32 {
  const left = digits.slice(0);
  const right: u32[] = [<u32>h, <u32>(h >> 32)];
  if (e10 >= 0) mulPow10(left, e10);
  else mulPow10(right, -e10);
  if (e2 >= 0) shiftLeft(right, e2);
  else shiftLeft(left, -e2);
  return compareBig(left, right);
}

// Big naturals: little-endian arrays of 32-bit limbs.

function bigFromDigits(n: i32): u32[] {
  const out: u32[] = [0];
  let i = 0;
  while (i < n) {
    const chunk = min(9, n - i);
    let v: u32 = 0;
    for (let j = 0; j < chunk; j++) v = v * 10 + <u32>unchecked(digitBuf[i + j]);
    mulSmall(out, <u32>Math.pow(10, <f64>chunk), v);
    i += chunk;
  }
  return out;
}

function mulSmall(a: u32[], m: u32, add: u32): void {
  let carry: u64 = add;
  for (let i = 0; i < a.length; i++) {
    const t = <u64>unchecked(a[i]) * m + carry;
    unchecked((a[i] = <u32>t));
    carry = t >> 32;
  }
  if (carry != 0) a.push(<u32>carry);
}

function mulPow10(a: u32[], n: i32): void {
  for (; n >= 9; n -= 9) mulSmall(a, 1000000000, 0);
  if (n > 0) mulSmall(a, <u32>Math.pow(10, <f64>n), 0);
}

function shiftLeft(a: u32[], n: i32): void {
  const words = n >> 5;
  const bitShift = n & 31;
  if (bitShift != 0) {
    let carry: u32 = 0;
    for (let i = 0; i < a.length; i++) {
      const v = unchecked(a[i]);
      unchecked((a[i] = (v << bitShift) | carry));
      carry = v >> (32 - bitShift);
    }
    if (carry != 0) a.push(carry);
  }
  if (words > 0) {
    const zeros = new Array<u32>(words);
    for (let i = 0; i < words; i++) unchecked((zeros[i] = 0));
    const moved = zeros.concat(a);
    a.length = 0;
    for (let i = 0; i < moved.length; i++) a.push(unchecked(moved[i]));
  }
}

function significantLength(a: u32[]): i32 {
  let n = a.length;
  while (n > 0 && unchecked(a[n - 1]) == 0) n--;
  return n;
}

function compareBig(a: u32[], b: u32[]): i32 {
  const na = significantLength(a);
  const nb = significantLength(b);
  if (na != nb) return na > nb ? 1 : -1;
  for (let i = na - 1; i >= 0; i--) {
    const x = unchecked(a[i]);
    const y = unchecked(b[i]);
    if (x != y) return x > y ? 1 : -1;
  }
  return 0;
}
