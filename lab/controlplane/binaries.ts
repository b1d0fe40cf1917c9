// Where scripts/build-controlplane.sh caches the Go-built binaries (keep the two in step).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cacheDir(): string {
  if (process.env.WASM_CCM_CACHE) return process.env.WASM_CCM_CACHE;
  const base = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(base, 'wasm-ccm');
}

export type ControlPlaneBinary = 'kube-apiserver' | 'etcd' | 'kwok';

export function binaryPath(name: ControlPlaneBinary): string {
  const path = join(cacheDir(), 'bin', name);
  if (!existsSync(path)) {
    throw new Error(`${name} is not built: expected ${path}. Run 'npm run build:controlplane' (needs Go >= 1.26).`);
  }
  return path;
}

export function kwokStagesDir(): string {
  const path = join(cacheDir(), 'kwok-stages');
  if (!existsSync(path)) throw new Error(`kwok stage files missing at ${path}. Run 'npm run build:controlplane'.`);
  return path;
}
