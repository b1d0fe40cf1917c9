// Paths of the plugins `npm run build:plugins` builds (pretest runs it).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

export function builtPlugin(name: string): string {
  const path = join(ROOT, 'plugins', name, 'build', `${name}.wasm`);
  if (!existsSync(path)) throw new Error(`${path} is missing: run 'npm run build:plugins'`);
  return path;
}

export const EXAMPLE_PLUGIN = builtPlugin('example');
