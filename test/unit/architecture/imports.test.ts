// The CCM's own layers (host/src): the ABI's value types at the bottom, the provider interface on them, the
// implementations and controllers above, the app on top; and the plugin runtime's wings in their order. Cycles, the
// edges between top-level folders and the doors of every folder are held for the whole repository by
// repository.test.ts.
import { describe, expect, it } from 'vitest';
import { importGraph } from './graph.ts';

const HOST = 'host/src/';
const folderOf = (file: string): string => file.slice(HOST.length).split('/').slice(0, -1)[0] ?? '.';

/** The plugin runtime's wings, each importing only those before it (host/src/plugin/README.md, "Layout"). */
const PLUGIN_WINGS = ['module', 'broker', 'config', 'sandbox', 'runtime', 'swap'] as const;

describe('host/src layers', () => {
  const { edges } = importGraph();
  const host = [...edges].filter(([file]) => file.startsWith(HOST));

  it('reads the host (the check itself works)', () => {
    expect(host.length).toBeGreaterThan(150);
    expect(edges.get('host/src/plugin/swap/candidate.ts')?.some((t) => t.startsWith('host/src/plugin/runtime/'))).toBe(
      true,
    );
  });

  it('keeps the provider interface on the ABI alone: cloudprovider/ imports only abi/, abi/ nothing', () => {
    const outside = (folder: string, allowed: string[]): string[] =>
      host
        .filter(([file]) => folderOf(file) === folder)
        .flatMap(([file, targets]) =>
          targets.filter((t) => !allowed.includes(folderOf(t))).map((t) => `${file} -> ${t}`),
        );
    expect(outside('cloudprovider', ['cloudprovider', 'abi'])).toEqual([]);
    expect(outside('abi', ['abi'])).toEqual([]);
  });

  it('keeps the plugin runtime wings in order: each imports only the wings before it', () => {
    const wingOf = (file: string): number =>
      PLUGIN_WINGS.indexOf(file.slice(`${HOST}plugin/`.length).split('/')[0] as (typeof PLUGIN_WINGS)[number]);
    const files = host.filter(([file]) => file.startsWith(`${HOST}plugin/`));
    // Every file of plugin/ but its door sits in a wing.
    expect(files.filter(([file]) => wingOf(file) < 0).map(([file]) => file)).toEqual([`${HOST}plugin/index.ts`]);
    const upward = files.flatMap(([file, targets]) =>
      targets
        .filter((t) => t.startsWith(`${HOST}plugin/`) && wingOf(file) >= 0 && wingOf(t) > wingOf(file))
        .map((t) => `${file} -> ${t}`),
    );
    expect(upward).toEqual([]);
  });
});
