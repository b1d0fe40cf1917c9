// The repository reads as its architecture: which top-level folder may import which (ALLOWED, with the reason), no
// import cycle at any level (files or folders, anywhere, plugin-sdk and the AssemblyScript sources included), and
// every folder with an index.ts entered only through it. Unit and end-to-end tests, and benchmarks, reach into the
// code they test or measure (host, devcloud, plugin-sdk, plugins, packages, scripts) past its doors; the lab they
// only enter by its doors.
import { describe, expect, it } from 'vitest';
import { cycles, cyclesAtEveryLevel, doorViolations, importGraph, topFolder } from './graph.ts';

/** Top-level folder -> the folders it may import from (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  // The CCM and the plugin SDK stand alone: what ships depends on nothing around it.
  host: [],
  'plugin-sdk': [],
  // The simulated IaaS shares nothing with the CCM it serves.
  devcloud: [],
  // Providers are built with the SDK only.
  plugins: ['plugin-sdk'],
  // Release packages wrap the CCM's kit and CLI; `wasm-ccm dev` runs the lab's control plane and processes
  // (lab/controlplane, lab/process: compiled into the package, and importing nothing outside the two).
  packages: ['host', 'lab'],
  // Code generation and packing: the ABI model, the CCM's flags, the packages.
  scripts: ['host', 'plugin-sdk', 'packages'],
  // The harness: runs the CCM, devcloud and the plugins (which it builds with the SDK's tools).
  lab: ['host', 'devcloud', 'plugin-sdk', 'plugins'],
  // Checks, measurements and the demo stand on the lab, never on each other.
  test: ['lab', 'host', 'devcloud', 'plugin-sdk', 'plugins', 'packages', 'scripts'],
  bench: ['lab', 'host', 'devcloud', 'plugins', 'scripts'],
  // The demo is `wasm-ccm dev` (packages/wasm-ccm) with devcloud.
  demo: ['lab', 'devcloud', 'plugins', 'packages'],
  // Root configuration files.
  '.': [],
};

/** Folders whose internals tests and benchmarks may reach: the code under test or measurement. */
const UNDER_TEST = new Set(['host', 'devcloud', 'plugin-sdk', 'plugins', 'packages', 'scripts']);

describe('repository import graph', () => {
  const { edges, missing } = importGraph();

  it('reads every file (the check itself works)', () => {
    expect(missing).toEqual([]);
    expect(edges.size).toBeGreaterThan(700);
    expect(edges.get('host/src/app/ccm.ts')?.length).toBeGreaterThan(5);
    // AssemblyScript's extensionless specifiers are followed too.
    expect(edges.get('plugin-sdk/assembly/index.ts')?.length).toBeGreaterThan(3);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toHaveLength(1);
    expect(
      cyclesAtEveryLevel(
        new Map([
          ['x/a/1.ts', ['x/b/1.ts']],
          ['x/b/1.ts', ['x/a/2.ts']],
        ]),
      ),
    ).toEqual(['x: a <-> b']);
    expect(
      doorViolations(
        new Map([
          ['a/1.ts', ['b/c/2.ts']],
          ['b/c/index.ts', []],
          ['b/c/2.ts', []],
        ]),
        () => false,
      ),
    ).toHaveLength(1);
  });

  it('imports between top-level folders only as ALLOWED says', () => {
    const unknown = [...new Set([...edges.keys()].map(topFolder))].filter((f) => !(f in ALLOWED));
    expect(unknown).toEqual([]);
    const wrong = [...edges].flatMap(([from, targets]) =>
      targets
        .filter((to) => topFolder(to) !== topFolder(from) && !ALLOWED[topFolder(from)]!.includes(topFolder(to)))
        .map((to) => `${from} -> ${to}`),
    );
    expect(wrong).toEqual([]);
  });

  it('has no import cycle at any level: between files, or between folders anywhere', () => {
    expect(cyclesAtEveryLevel(edges)).toEqual([]);
  });

  it('enters every folder that has an index.ts through it', () => {
    // The fuzz engines are differential tests of the parsers they name, as unit tests are; the ABI generator's driver
    // (scripts/gen-abi.ts) runs the SDK's code generator, which the package does not publish.
    const exempt = (from: string, to: string): boolean =>
      ((['test', 'bench'].includes(topFolder(from)) || from.startsWith('lab/fuzz/')) &&
        UNDER_TEST.has(topFolder(to))) ||
      (from === 'scripts/gen-abi.ts' && to.startsWith('plugin-sdk/codegen/'));
    expect(doorViolations(edges, exempt)).toEqual([]);
  });
});
