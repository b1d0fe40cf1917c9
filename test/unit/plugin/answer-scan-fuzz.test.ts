// Differential test of the answer scan (sandbox/answer-scan.ts) against JSON itself: random JSON values, their
// strings full of what the scan must step over (quotes, backslashes, brackets, commas, escapes, non-ASCII), written
// by JSON.stringify with and without indentation. For each, the nesting and the value count the scan judges must be
// exactly the value's own: accepted at those limits, refused one below either.
import { describe, expect, it } from 'vitest';
import { scanAnswer } from '../../../host/src/plugin/sandbox/answer-scan.ts';
import { Random } from '../../../lab/fuzz/json/index.ts';

const CASES = 2000;

// Seeded (mulberry32), so a failure can be replayed by its seed.
function random(seed: number): () => number {
  const generator = new Random(seed);
  return () => generator.next();
}

const PIECES = ['"', '\\', '\\"', '\\\\', '[', ']', '{', '}', ',', ':', 'a', ' ', '\n', '\u0000', 'é', '😀', '\u2028'];

function randomString(next: () => number): string {
  let text = '';
  for (let n = Math.floor(next() * 40); n > 0; n--) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

function randomValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (depth > 6 || roll < 0.3) {
    const scalars = [() => randomString(next), () => Math.floor(next() * 1e6) - 5e5, () => next() < 0.5, () => null];
    return (scalars[Math.floor(next() * scalars.length)] as () => unknown)();
  }
  const size = Math.floor(next() * 5);
  if (roll < 0.65) return Array.from({ length: size }, () => randomValue(next, depth + 1));
  return Object.fromEntries(
    Array.from({ length: size }, (_, i) => [`${randomString(next)}${i}`, randomValue(next, depth + 1)]),
  );
}

/** Nesting of containers, and values as the scan counts them: each container, and each separating comma. */
function shape(value: unknown): { depth: number; values: number } {
  if (typeof value !== 'object' || value === null) return { depth: 0, values: 0 };
  const children = Array.isArray(value) ? value : Object.values(value);
  let depth = 0;
  let values = 1 + Math.max(0, children.length - 1);
  for (const child of children) {
    const inner = shape(child);
    depth = Math.max(depth, inner.depth);
    values += inner.values;
  }
  return { depth: depth + 1, values };
}

describe('the answer scan', () => {
  it(`judges nesting and values exactly as JSON has them, over ${CASES} random values`, () => {
    const next = random(20_241_126);
    const encoder = new TextEncoder();
    for (let i = 0; i < CASES; i++) {
      const value = randomValue(next, 0);
      const text = JSON.stringify(value, null, next() < 0.5 ? undefined : Math.floor(next() * 3));
      expect(JSON.parse(text)).toEqual(value);
      const bytes = encoder.encode(text);
      const { depth, values } = shape(value);
      const what = `case ${i}: ${text.slice(0, 200)}`;
      expect(scanAnswer(bytes, { depth, values }), what).toBeUndefined();
      if (depth > 0) expect(scanAnswer(bytes, { depth: depth - 1, values }), what).toMatch(/nested deeper than/);
      if (values > 0) expect(scanAnswer(bytes, { depth, values: values - 1 }), what).toMatch(/holds more than/);
    }
  });
});
