import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Our package.json's version, found upwards from this file: host/src in the sources, dist/host/src when built. */
export function packageVersion(): string {
  let dir = import.meta.dirname;
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'wasm-ccm') return pkg.version ?? 'unknown';
    } catch {
      // not here; look further up
    }
    dir = dirname(dir);
  }
  return 'unknown';
}
