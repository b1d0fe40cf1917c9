// Where `wasm-ccm dev` finds what it runs, the same from the repository (TypeScript) and from the installed package
// (compiled under dist/): the manifests and the control plane's build script at the root, the CCM's entry point, and
// the Go-built binaries in the cache scripts/build-controlplane.sh fills (lab/controlplane/binaries.ts).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binaryPath, type ControlPlaneBinary, kwokStagesDir } from '../../../../lab/controlplane/index.ts';

const HERE = fileURLToPath(import.meta.url);

/** The folder holding manifests/rbac.yaml: the repository, or the installed wasm-ccm package. */
export function packageRoot(from = dirname(HERE)): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'manifests', 'rbac.yaml')) && existsSync(join(dir, 'scripts', 'build-controlplane.sh'))) {
      return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no manifests/rbac.yaml above ${from}: the wasm-ccm package is damaged`);
  }
}

/** The CCM's entry point beside this module: host/src/main.ts here, dist/host/src/main.js in the package. */
export function ccmMain(): string {
  return join(dirname(HERE), '..', '..', '..', '..', 'host', 'src', `main${extname(HERE)}`);
}

const BINARIES: readonly ControlPlaneBinary[] = ['etcd', 'kube-apiserver', 'kwok'];

/** What is not built yet, as the errors of lab/controlplane/binaries.ts word it. */
function missingBinaries(): string[] {
  const missing: string[] = [];
  for (const check of [...BINARIES.map((b) => () => binaryPath(b)), kwokStagesDir]) {
    try {
      check();
    } catch (err) {
      missing.push((err as Error).message);
    }
  }
  return missing;
}

/**
 * Builds the control plane's binaries when the cache lacks them (minutes, once; needs Go >= 1.26), reporting
 * through `say`. Throws naming what is missing when the build fails.
 */
export function ensureControlPlaneBinaries(say: (line: string) => void): void {
  if (missingBinaries().length === 0) return;
  const script = join(packageRoot(), 'scripts', 'build-controlplane.sh');
  say(`building kube-apiserver, etcd and kwok once with ${script} (cold builds take minutes)`);
  const built = spawnSync('bash', [script], { stdio: ['ignore', 'inherit', 'inherit'] });
  const still = missingBinaries();
  if (built.status !== 0 || still.length > 0) {
    throw new Error(`the control plane is not built (${script} exited ${built.status}): ${still.join('; ')}`);
  }
}
