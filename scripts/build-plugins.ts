// Builds every plugin under plugins/: a directory with an asconfig.json is a plugin, its entry is the config's first
// `entries` item (default assembly/index.ts), its output plugins/<name>/build/<name>.wasm. A build is skipped when a
// hash of its inputs (the plugin's sources, the SDK's sources, the compiler preset and version) matches the stamp left
// by the previous build, so a warm `npm test` costs milliseconds here. Every module's imports are checked.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInputsHash, compileAssemblyScript, writeOut } from '../plugin-sdk/tools/compile.ts';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PLUGINS_DIR = join(REPO_ROOT, 'plugins');

export interface PluginBuild {
  name: string;
  dir: string;
  entry: string;
  outFile: string;
}

export interface BuildOutcome {
  name: string;
  outFile: string;
  built: boolean;
  elapsedMs: number;
}

/** The hash of everything a plugin's build depends on; stored next to the output as <name>.wasm.stamp. */
export function inputsHash(plugin: PluginBuild): string {
  return buildInputsHash([plugin.dir], `plugin ${plugin.name}`);
}

export function discoverPlugins(root: string = PLUGINS_DIR): PluginBuild[] {
  if (!existsSync(root)) return [];
  const found: PluginBuild[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    const config = join(dir, 'asconfig.json');
    if (!statSync(dir).isDirectory() || !existsSync(config)) continue;
    let entries: unknown;
    try {
      entries = (JSON.parse(readFileSync(config, 'utf8')) as { entries?: unknown }).entries;
    } catch (err) {
      throw new Error(`${relative(REPO_ROOT, config)} is not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    const first = Array.isArray(entries) && typeof entries[0] === 'string' ? entries[0] : 'assembly/index.ts';
    const entry = join(dir, first);
    if (!existsSync(entry)) throw new Error(`plugin ${name}: entry ${relative(REPO_ROOT, entry)} does not exist`);
    found.push({ name, dir, entry, outFile: join(dir, 'build', `${name}.wasm`) });
  }
  return found;
}

/** Builds one plugin unless its stamp says the output is up to date. */
export async function buildPlugin(plugin: PluginBuild, force = false): Promise<BuildOutcome> {
  const stampFile = `${plugin.outFile}.stamp`;
  const hash = inputsHash(plugin);
  if (!force && existsSync(plugin.outFile) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) {
    return { name: plugin.name, outFile: plugin.outFile, built: false, elapsedMs: 0 };
  }
  const result = await compileAssemblyScript(plugin.entry, { outFile: plugin.outFile });
  writeOut(stampFile, hash);
  return { name: plugin.name, outFile: plugin.outFile, built: true, elapsedMs: result.elapsedMs };
}

if (import.meta.main) {
  const force = process.argv.includes('--force');
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const plugins = discoverPlugins().filter((p) => only.length === 0 || only.includes(p.name));
  let failed = 0;
  for (const plugin of plugins) {
    try {
      const r = await buildPlugin(plugin, force);
      const where = relative(REPO_ROOT, r.outFile);
      console.log(r.built ? `built ${where} in ${(r.elapsedMs / 1000).toFixed(1)} s` : `${where} is up to date`);
    } catch (err) {
      failed++;
      console.error(`plugin ${plugin.name}: ${(err as Error).message}`);
    }
  }
  if (failed > 0) process.exit(1);
}
