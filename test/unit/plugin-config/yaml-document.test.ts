// The plugin configuration's YAML limits: what aliases expand to is bounded, a cycle is refused, and a document
// within the limits loads exactly as js-yaml loads it (the limits only ever refuse, never change, a document).
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { PluginConfigError } from '../../../host/src/plugin/config/field.ts';
import {
  loadConfigYaml,
  MAX_ALIASES,
  MAX_EXPANDED_DEPTH,
  MAX_EXPANDED_SIZE,
} from '../../../host/src/plugin/config/yaml-document.ts';
import { Random } from '../../../lab/fuzz/json/index.ts';

function refusal(text: string): PluginConfigError {
  try {
    loadConfigYaml(text);
  } catch (err) {
    if (err instanceof PluginConfigError) return err;
    throw err;
  }
  throw new Error('expected a PluginConfigError');
}

// Seeded (mulberry32), so a failure can be replayed by its seed.
function random(seed: number): () => number {
  const generator = new Random(seed);
  return () => generator.next();
}

/** A random document of mappings, lists and scalars, with anchors on some nodes and aliases to earlier anchors. */
function document(next: () => number): string {
  const anchors: string[] = [];
  let aliases = 0;
  const scalar = (): string => ['a', '1', 'true', 'null', '"x y"', "'q'", '2.5', '~'][Math.floor(next() * 8)] ?? 'a';
  const node = (depth: number): string => {
    const roll = next();
    if (anchors.length > 0 && roll < 0.15 && aliases < 20) {
      aliases++;
      return `*${anchors[Math.floor(next() * anchors.length)]}`;
    }
    if (depth > 3 || roll < 0.45) return scalar();
    const anchor = next() < 0.3 ? `a${anchors.length}` : undefined;
    const size = 1 + Math.floor(next() * 3);
    const items = Array.from({ length: size }, (_, i) => (roll < 0.7 ? node(depth + 1) : `k${i}: ${node(depth + 1)}`));
    const text = roll < 0.7 ? `[${items.join(', ')}]` : `{${items.join(', ')}}`;
    // The anchor becomes usable once its node is complete: no alias inside the node it names.
    if (anchor !== undefined) anchors.push(anchor);
    return anchor === undefined ? text : `&${anchor} ${text}`;
  };
  return `root: ${node(0)}\n`;
}

describe('plugin configuration YAML limits', () => {
  it('loads 2,000 random documents with anchors and aliases exactly as js-yaml does', () => {
    const next = random(1);
    for (let i = 0; i < 2_000; i++) {
      const text = document(next);
      expect(loadConfigYaml(text), text).toEqual(load(text));
    }
  });

  it('refuses a billion laughs at the expansion budget, naming where', () => {
    let text = `lol0: &lol0 [${Array(10).fill('lol').join(', ')}]\n`;
    for (let i = 1; i < 9; i++)
      text += `lol${i}: &lol${i} [${Array(10)
        .fill(`*lol${i - 1}`)
        .join(', ')}]\n`;
    const err = refusal(text);
    expect(err.message).toMatch(
      new RegExp(
        `^lol\\d(\\[\\d\\])+: YAML aliases expand the document past ${MAX_EXPANDED_SIZE} nodes and characters$`,
      ),
    );
  });

  it('counts the characters of aliased strings: one long string named many times is refused', () => {
    const text = `s: &s "${'x'.repeat(1_048_576)}"\nl: [${Array(10).fill('*s').join(', ')}]\n`;
    expect(refusal(text).message).toMatch(/^l\[\d\]: YAML aliases expand the document past/);
  });

  it('counts a number as long as its JSON: long numbers named many times are refused', () => {
    const numbers = `n: &n [${Array(1000).fill('-1.2345678901234567e-300').join(', ')}]\n`;
    const levels = [1, 2, 3].map(
      (i) =>
        `l${i}: &l${i} [${Array(10)
          .fill(i === 1 ? '*n' : `*l${i - 1}`)
          .join(', ')}]`,
    );
    const text = `${numbers}${levels.join('\n')}\ntop: [${Array(7).fill('*l3').join(', ')}]\n`;
    expect(refusal(text).message).toMatch(/YAML aliases expand the document past/);
  });

  it('refuses an alias inside the node it names, and more aliases than js-yaml is told to allow', () => {
    expect(refusal('a: &a\n  b: [1, *a]\n').message).toBe('a.b[1]: a YAML alias inside the node it names (a cycle)');
    expect(
      refusal(
        `x: &x 1\nl: [${Array(MAX_ALIASES + 1)
          .fill('*x')
          .join(', ')}]\n`,
      ).message,
    ).toMatch(/^not YAML or JSON: aliases exceeded maxAliases \(100\)/);
  });

  it('refuses aliases that nest the document deeper than the cap', () => {
    // Each level names the one before inside a 50-deep list: 10 levels nest 500 deep once expanded.
    const deep = (inner: string): string => '['.repeat(50) + inner + ']'.repeat(50);
    let text = `l0: &l0 ${deep('1')}\n`;
    for (let i = 1; i < 10; i++) text += `l${i}: &l${i} ${deep(`*l${i - 1}`)}\n`;
    expect(refusal(text).message).toMatch(new RegExp(`YAML aliases nest it deeper than ${MAX_EXPANDED_DEPTH} levels$`));
  });
});
