// Assembles WebAssembly text with binaryen's wasm-as (a devDependency's binary in node_modules/.bin): hostile modules
// written by hand, with the features the toolchain does not use (exception handling, large tables).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WASM_AS = resolve(dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin/wasm-as');

export type WatFeature = 'exception-handling' | 'reference-types' | 'bulk-memory' | 'multivalue' | 'tail-call' | 'simd';

export function assembleWat(text: string, features: readonly WatFeature[] = []): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'wat-'));
  try {
    const input = join(dir, 'module.wat');
    const output = join(dir, 'module.wasm');
    writeFileSync(input, text);
    execFileSync(WASM_AS, [input, '-o', output, ...features.map((f) => `--enable-${f}`)], { stdio: 'pipe' });
    return new Uint8Array(readFileSync(output));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
