// Large documents that pile up one XML construct, n times, for the time fuzzer (timing.ts): a reader that is
// quadratic in any construct (attributes, references, text runs, children, nesting, names, namespace declarations,
// line ends) shows it as time that grows faster than n. Every document is well-formed, so the reader does all the
// work; the random choices vary the spelling, not the size.
import type { Random } from '../json/index.ts';

/** The reader's depth limit (XML_MAX_DEPTH in plugin-sdk/assembly/xml/reader.ts). */
const MAX_DEPTH = 256;

export type AdversarialShape =
  | 'attributes'
  | 'entities'
  | 'attribute-entities'
  | 'text-runs'
  | 'children'
  | 'deep-nesting'
  | 'long-names'
  | 'namespaces'
  | 'line-ends';

/** A document with about n of the shape's construct (n >= 1). */
export type AdversarialGenerator = (rng: Random, n: number) => string;

const REFERENCES = ['&amp;', '&lt;', '&gt;', '&quot;', '&apos;', '&#65;', '&#x1F600;', '&#xe9;', '&#10;'];

function references(rng: Random, n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(rng.chance(0.1) ? 'x' : rng.pick(REFERENCES));
  return parts.join('');
}

function attributes(rng: Random, n: number): string {
  const parts = ['<r'];
  const prefix = rng.pick(['a', 'attr', 'p:a', 'x-y.z_']);
  for (let i = 0; i < n; i++) {
    const q = rng.chance(0.5) ? '"' : "'";
    parts.push(` ${prefix}${i}=${q}${rng.chance(0.5) ? '' : 'v'}${q}`);
  }
  parts.push(rng.chance(0.5) ? '/>' : '>x</r>');
  return parts.join('');
}

function textRuns(rng: Random, n: number): string {
  const separator = rng.pick(['<!---->', '<?p?>', '<![CDATA[y]]>', '<b/>']);
  return `<r>${`x${separator}`.repeat(n)}</r>`;
}

function children(rng: Random, n: number): string {
  const child = rng.pick(['<c/>', '<c>t</c>', '<p:c a="1"/>', '<item><id>i-1</id></item>']);
  return `<r>${child.repeat(n)}</r>`;
}

/** n elements in nests as deep as the reader allows (the root plus MAX_DEPTH - 1 levels). */
function deepNesting(rng: Random, n: number): string {
  const name = rng.pick(['n', 'item', 'ec2:item']);
  const levels = MAX_DEPTH - 1;
  const nest = `<${name}>`.repeat(levels) + (rng.chance(0.5) ? 'x' : '') + `</${name}>`.repeat(levels);
  return `<r>${nest.repeat(Math.max(1, Math.round(n / levels)))}</r>`;
}

/** An element, an attribute and a prefix each n characters long. */
function longNames(rng: Random, n: number): string {
  const start = rng.pick(['a', '_', 'é', 'ns']);
  const name = start + 'x'.repeat(n);
  const prefix = 'p'.repeat(n);
  return `<${prefix}:${name} ${name}="1" xmlns:${prefix}="u"><${name}/>t</${prefix}:${name}>`;
}

/** n namespace declarations on the root, and n children that use them. */
function namespaces(rng: Random, n: number): string {
  const declarations: string[] = [];
  const uses: string[] = [];
  for (let i = 0; i < n; i++) {
    declarations.push(` xmlns:p${i}="urn:${rng.pick(['ec2', 'elb', 'x'])}:${i}"`);
    uses.push(`<p${i}:e p${i}:a="1"/>`);
  }
  return `<r xmlns="urn:default"${declarations.join('')}>${uses.join('')}</r>`;
}

function lineEnds(rng: Random, n: number): string {
  const end = rng.pick(['\r\n', '\r', '\n\r']);
  const half = Math.max(1, n >> 1);
  return `<r a="${'\t'.repeat(half)}">${`x${end}`.repeat(half)}<![CDATA[${`y${end}`.repeat(half)}]]></r>`;
}

export const ADVERSARIAL_SHAPES: Record<AdversarialShape, AdversarialGenerator> = {
  attributes,
  entities: (rng, n) => `<r>${references(rng, n)}</r>`,
  'attribute-entities': (rng, n) => `<r a="${references(rng, n)}"/>`,
  'text-runs': textRuns,
  children,
  'deep-nesting': deepNesting,
  'long-names': longNames,
  namespaces,
  'line-ends': lineEnds,
};

/** The three documents the adversary round timed: 40,000 attributes, 1 M `&amp;` and 200,000 text runs. */
export const ADVERSARY_CASES: Record<string, string> = {
  '40,000 attributes (389 KB)': `<r${Array.from({ length: 40_000 }, (_, i) => ` a${i}=""`).join('')}/>`,
  '1 M &amp; (5 MB)': `<r>${'&amp;'.repeat(1_000_000)}</r>`,
  '200,000 text runs (1.6 MB)': `<r>${'x<!---->'.repeat(200_000)}</r>`,
};
