// The repository's import graph, read the way TypeScript reads it (ts.preProcessFile: static imports, re-exports,
// type-only imports and import() alike, nothing in comments or strings), over every tracked TypeScript source,
// AssemblyScript included. Shared by the architecture tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import ts from 'typescript';

export const REPO = resolve(import.meta.dirname, '..', '..', '..');

export interface ImportGraph {
  /** repo-relative file -> the repo-relative files it imports (relative specifiers only) */
  edges: Map<string, string[]>;
  /** relative specifiers that name no file: each would hide an edge */
  missing: string[];
}

/** Where a relative specifier lands: the file itself, or as AssemblyScript and bundlers resolve it (.ts, /index.ts). */
function resolveSpecifier(files: ReadonlySet<string>, from: string, specifier: string): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  return [base, `${base}.ts`, `${base}/index.ts`].find((candidate) => files.has(candidate));
}

function trackedSources(): string[] {
  return execFileSync('git', ['-C', REPO, 'ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' })
    .split('\n')
    .filter((p) => /\.(ts|mts|mjs)$/.test(p) && !p.endsWith('.d.ts') && existsSync(posix.join(REPO, p)));
}

/** Template sources that import files the generator writes next to them at creation time. */
const TEMPLATES = /^packages\/[^/]+\/template\//;

export function importGraph(): ImportGraph {
  const sources = trackedSources();
  const files = new Set(sources);
  const edges = new Map<string, string[]>();
  const missing: string[] = [];
  for (const file of sources) {
    const info = ts.preProcessFile(readFileSync(posix.join(REPO, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveSpecifier(files, file, fileName);
      if (target === undefined) {
        if (!TEMPLATES.test(file)) missing.push(`${file}: ${fileName}`);
      } else if (target !== file) targets.add(target);
    }
    edges.set(file, [...targets]);
  }
  return { edges, missing };
}

/** Strongly connected components with more than one member (Tarjan). */
export function cycles<T>(graph: ReadonlyMap<T, readonly T[]>): T[][] {
  let next = 0;
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const stack: T[] = [];
  const onStack = new Set<T>();
  const found: T[][] = [];
  const visit = (v: T): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: T[] = [];
    let w: T;
    do {
      w = stack.pop() as T;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The top-level folder of a repo-relative path ('.' for a file at the root). */
export const topFolder = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '.');

/**
 * Cycles among the children of every folder: for folder P, each import between two different children of P (a file
 * of P, or a subfolder with everything under it) is an edge between those children. No cycle at any level means no
 * two files, and no two folders anywhere, import each other, directly or around a loop.
 */
export function cyclesAtEveryLevel(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const byParent = new Map<string, Map<string, Set<string>>>();
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const a = from.split('/');
      const b = to.split('/');
      let depth = 0;
      while (depth < a.length - 1 && depth < b.length - 1 && a[depth] === b[depth]) depth++;
      const parent = a.slice(0, depth).join('/') || '.';
      const childA = a[depth]!;
      const childB = b[depth]!;
      if (childA === childB) continue;
      const graph = byParent.get(parent) ?? new Map<string, Set<string>>();
      byParent.set(parent, graph);
      graph.set(childA, (graph.get(childA) ?? new Set()).add(childB));
    }
  }
  const found: string[] = [];
  for (const [parent, graph] of byParent) {
    const plain = new Map([...graph].map(([k, v]) => [k, [...v]]));
    for (const cycle of cycles(plain)) found.push(`${parent}: ${cycle.sort().join(' <-> ')}`);
  }
  return found.sort();
}

/**
 * The doors of a folder: its index.ts, and for a package (a package.json with "exports") the sources of what it
 * exports (`./tools/compile` -> tools/compile.ts), since a package's consumers enter it only there.
 */
function doorsOf(folder: string, files: ReadonlySet<string>): Set<string> {
  const doors = new Set<string>();
  if (files.has(`${folder}/index.ts`)) doors.add(`${folder}/index.ts`);
  const manifest = posix.join(REPO, folder, 'package.json');
  if (!existsSync(manifest)) return doors;
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, unknown>; files?: string[] };
  // AssemblyScript resolves a package by path: its published top-level sources are entry points too.
  for (const file of pkg.files ?? [])
    if (!file.includes('/') && files.has(posix.join(folder, file))) doors.add(posix.join(folder, file));
  for (const value of Object.values(pkg.exports ?? {})) {
    const target = typeof value === 'string' ? value : (value as { default?: string }).default;
    const source = target && posix.join(folder, target.replace(/\.js$/, '.ts'));
    if (source && files.has(source)) doors.add(source);
  }
  return doors;
}

/**
 * The door rule: an import from outside a folder that has doors goes to one of them. For an import A -> B, the first
 * folder on the way down from their deepest common folder to B that has doors must have B among them. A package's
 * doors may re-export from anywhere inside it. Returns the imports that pass a door.
 */
export function doorViolations(
  edges: ReadonlyMap<string, readonly string[]>,
  exempt: (from: string, to: string) => boolean,
): string[] {
  const files = new Set(edges.keys());
  const doorCache = new Map<string, Set<string>>();
  const doors = (folder: string): Set<string> => {
    let found = doorCache.get(folder);
    if (!found) doorCache.set(folder, (found = doorsOf(folder, files)));
    return found;
  };
  const isPackageDoor = (file: string): boolean => {
    const parts = file.split('/');
    for (let d = 1; d < parts.length; d++) {
      const folder = parts.slice(0, d).join('/');
      if (existsSync(posix.join(REPO, folder, 'package.json')) && doors(folder).has(file)) return true;
    }
    return false;
  };
  const out: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) {
      if (exempt(from, to)) continue;
      const a = from.split('/');
      const b = to.split('/');
      let depth = 0;
      while (depth < a.length - 1 && depth < b.length - 1 && a[depth] === b[depth]) depth++;
      for (let d = depth + 1; d < b.length; d++) {
        const folder = b.slice(0, d).join('/');
        const entries = doors(folder);
        if (entries.size === 0) continue;
        if (!entries.has(to) && !(isPackageDoor(from) && to.startsWith(`${a.slice(0, depth).join('/')}/`)))
          out.push(`${from} -> ${to} (doors: ${[...entries].join(', ')})`);
        break;
      }
    }
  }
  return out.sort();
}
