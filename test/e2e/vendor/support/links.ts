// The links of a package's markdown as a vendor reads them in node_modules: every relative link must name a file or
// folder inside the package (an absolute URL is the reader's to follow). Fenced code and inline code are not links.
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const INLINE = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm;

/** The link targets of a markdown text, outside fenced code blocks and inline code spans. */
export function markdownLinks(text: string): string[] {
  const prose = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(INLINE), ...prose.matchAll(REFERENCE)].map((m) => m[1] ?? '');
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(e.parentPath, e.name));
}

/** "<file>: <target>" for each relative link of the package's markdown that does not resolve inside it. */
export function unresolvedLinks(packageRoot: string): string[] {
  const root = realpathSync(packageRoot);
  const problems: string[] = [];
  for (const file of markdownFiles(root)) {
    for (const target of markdownLinks(readFileSync(file, 'utf8'))) {
      if (target === '' || target.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const path = resolve(dirname(file), decodeURIComponent(target.split('#')[0] ?? ''));
      const inside = path === root || path.startsWith(root + sep);
      if (!inside || !existsSync(path)) problems.push(`${relative(root, file)}: ${target}`);
    }
  }
  return problems;
}
