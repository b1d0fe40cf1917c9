// The operator docs (docs/*.md) and the changelog link only to files that exist and to sections those files have, so
// a renamed page or heading fails here rather than in a reader's browser.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchor } from '../../../scripts/gen-troubleshooting-doc.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const PAGES = [
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f)),
  join(ROOT, 'CHANGELOG.md'),
];

/** The anchors GitHub gives a Markdown file's headings (outside code blocks). */
function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1] as string)));
}

/** Relative links of a page: [text](target), outside code blocks, without external URLs. */
function links(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((target) => !/^[a-z]+:/.test(target));
}

describe('operator docs links', () => {
  it.each(PAGES.map((page) => [relative(ROOT, page), page]))('%s links to files and sections that exist', (_, page) => {
    const broken: string[] = [];
    for (const target of links(page)) {
      const [path = '', section] = target.split('#');
      const file = path === '' ? page : join(dirname(page), path);
      if (!existsSync(file)) broken.push(`${target}: no such file`);
      else if (section !== undefined && file.endsWith('.md') && !anchors(file).has(section)) {
        broken.push(`${target}: no such section`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (the check itself works)', () => {
    const all = PAGES.flatMap(links);
    expect(all).toEqual(expect.arrayContaining(['metrics.md', 'troubleshooting.md#pluginrejected']));
  });
});
