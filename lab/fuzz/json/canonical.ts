// A JSON value as text with each object's keys sorted, so that two values compare as strings: the judge's check of
// its reference in a fresh process (judge.ts) runs this module there too.
import { readFileSync } from 'node:fs';

/** `v` as JSON with each object's keys sorted (numbers past f64's range as null, as JSON.stringify writes them). */
export function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

/** Run as a script: the canonical form of the JSON text on standard input, as this process's JSON.parse reads it. */
export function printCanonicalOfStdin(): void {
  process.stdout.write(canonical(JSON.parse(readFileSync(0, 'utf8')) as unknown));
}
