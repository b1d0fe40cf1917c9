// Builds the AssemblyScript fault plugins in lab/plugins/faults/assembly with the SDK's compile helper, once per content:
// outputs are cached in lab/plugins/faults/build (gitignored) under a hash of every input, so test files running
// in parallel, and later runs, reuse them.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compileAssemblyScript } from '../../plugin-sdk/tools/compile.ts';

export const FIXTURE_DIR = join(import.meta.dirname, 'faults', 'assembly');
const BUILD_DIR = join(import.meta.dirname, 'faults', 'build');
const SDK_HOST_DIR = resolve(import.meta.dirname, '..', '..', 'plugin-sdk', 'assembly', 'host');

export type FixtureName =
  'faulty' | 'echo' | 'abi-major-2' | 'missing-export' | 'init-fails' | 'http-bytes' | 'bad-node-fields';

const built = new Map<string, Promise<Uint8Array>>();

/** The fixture's Wasm bytes; `optimize` (-O3) is slower to build and only worth it for benchmarks. */
export function buildFixture(name: FixtureName, optimize = false): Promise<Uint8Array> {
  const key = `${name}:${optimize}`;
  let result = built.get(key);
  if (result === undefined) {
    result = buildNow(name, optimize);
    built.set(key, result);
  }
  return result;
}

async function buildNow(name: FixtureName, optimize: boolean): Promise<Uint8Array> {
  const entry = join(FIXTURE_DIR, `${name}.ts`);
  const hash = createHash('sha256');
  for (const file of [
    entry,
    join(FIXTURE_DIR, 'shared.ts'),
    ...readdirSync(SDK_HOST_DIR).map((f) => join(SDK_HOST_DIR, f)),
  ]) {
    hash.update(file).update(readFileSync(file));
  }
  const cached = join(BUILD_DIR, `${name}${optimize ? '-O3' : ''}-${hash.digest('hex').slice(0, 16)}.wasm`);
  if (existsSync(cached)) return new Uint8Array(readFileSync(cached));
  // The fixtures use kernel functions the SDK itself does not (config_get, log_info): the host's policy judges them.
  const { wasm } = await compileAssemblyScript(entry, { optimize, checkImports: false });
  mkdirSync(BUILD_DIR, { recursive: true });
  const temporary = `${cached}.${process.pid}.tmp`;
  writeFileSync(temporary, wasm);
  renameSync(temporary, cached);
  return wasm;
}
