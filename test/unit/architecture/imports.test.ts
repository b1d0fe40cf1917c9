// The code reads as the architecture: the ABI's value types at the bottom, the provider interface on them, the
// implementations and controllers above, the app on top. Checked over every relative import of host/src (type-only
// ones and dynamic import() included): no file imports itself through others, no two folders import each other,
// and the provider interface depends on nothing but the ABI.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..', 'host', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** file -> the files it imports (relative specifiers that name a file of host/src). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(ROOT)) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [
      ...[...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+['"](\.[^'"]+)['"]/gms)].map((m) => m[1] as string),
      ...[...text.matchAll(/^import\s+['"](\.[^'"]+)['"]/gm)].map((m) => m[1] as string),
      ...[...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => m[1] as string),
    ];
    const targets = specifiers.map((s) => resolve(dirname(file), s));
    // A specifier that names no file would hide an edge: the check must see every one.
    const missing = targets.filter((t) => !existsSync(t));
    if (missing.length > 0) throw new Error(`${relative(ROOT, file)} imports what is not there: ${missing.join(', ')}`);
    graph.set(file, [...new Set(targets.filter((t) => t !== file))]);
  }
  return graph;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles<T>(graph: ReadonlyMap<T, readonly T[]>): T[][] {
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

const folderOf = (file: string): string => relative(ROOT, file).split('/').slice(0, -1)[0] ?? '.';
const rel = (file: string): string => relative(ROOT, file);

describe('host/src import graph', () => {
  const graph = importGraph();

  it('reads every file (the check itself works)', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get(join(ROOT, 'app', 'ccm.ts'))?.length).toBeGreaterThan(5);
    // It would see a cycle: a two-file graph that imports both ways.
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toHaveLength(1);
  });

  it('has no import cycle between files', () => {
    expect(cycles(graph).map((c) => c.map(rel).sort().join(' <-> '))).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      const to = new Set(folders.get(from) ?? []);
      for (const t of targets) if (folderOf(t) !== from) to.add(folderOf(t));
      folders.set(from, [...to]);
    }
    expect(cycles(folders).map((c) => c.sort().join(' <-> '))).toEqual([]);
  });

  it('keeps the provider interface on the ABI alone: cloudprovider/ imports only abi/', () => {
    const outside = [...graph]
      .filter(([file]) => folderOf(file) === 'cloudprovider')
      .flatMap(([file, targets]) =>
        targets.filter((t) => !['cloudprovider', 'abi'].includes(folderOf(t))).map((t) => `${rel(file)} -> ${rel(t)}`),
      );
    expect(outside).toEqual([]);
    const abiImports = [...graph]
      .filter(([file]) => folderOf(file) === 'abi')
      .flatMap(([file, targets]) =>
        targets.filter((t) => folderOf(t) !== 'abi').map((t) => `${rel(file)} -> ${rel(t)}`),
      );
    expect(abiImports).toEqual([]);
  });
});
