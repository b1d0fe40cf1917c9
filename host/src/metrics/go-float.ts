// Numbers as Go's strconv.FormatFloat(f, 'g', -1, 64) prints them, which is how client_golang writes a histogram's
// `le` label (prometheus/common expfmt). JavaScript prints 1e-8 where Go prints 1e-08, and 1000000 where Go prints
// 1e+06: a bucket whose `le` text differs from upstream's is another series to a dashboard's histogram_quantile.

// Go's 'g' with the shortest precision switches to an exponent below 1e-4 and from 1e6 up (the precision of 6
// strconv uses for that decision when asked for the shortest form).
const MIN_PLAIN_EXPONENT = -4;
const MAX_PLAIN_EXPONENT = 5;

/** `f` as Go's strconv.FormatFloat(f, 'g', -1, 64): the same shortest digits as JavaScript, Go's exponent form. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // toExponential() without digits gives the shortest digits that read back as f, as Go's -1 precision does.
  const [mantissa, exponentText] = f.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= MIN_PLAIN_EXPONENT && exponent <= MAX_PLAIN_EXPONENT) return String(f);
  const sign = exponent < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** client_golang's ExponentialBuckets: each bucket the previous times `factor`, rounding as Go's float64 does. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const buckets = [start];
  for (let i = 1; i < count; i++) buckets.push((buckets[i - 1] as number) * factor);
  return buckets;
}
