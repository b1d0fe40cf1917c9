// wasm-ccm: the CCM, its `wasm-ccm plugin test` conformance kit and the `wasm-ccm/testing` host for provider unit
// tests, compiled to JavaScript by the project's tsc build (nothing runs as TypeScript under node_modules). The
// manifest is the root package.json's name, version and runtime dependencies, with a bin and exports of its own.
import { join } from 'node:path';
import {
  type Packed,
  compileTypeScript,
  copyInto,
  copyKeepingPaths,
  freshStage,
  npmPack,
  readJson,
  REPO_ROOT,
  writeJson,
} from './stage.ts';
import { writeBinShim } from './bin-shim.ts';

interface RootManifest {
  name: string;
  version: string;
  description: string;
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
}

const TESTING = './dist/packages/wasm-ccm/src/testing/index';
const BIN = 'bin/wasm-ccm.cjs';
/** What `wasm-ccm dev` builds the control plane with when the cache lacks it: the script and its Go modules. */
const CONTROL_PLANE_BUILD = [
  'scripts/build-controlplane.sh',
  'scripts/lib/go-build.sh',
  ...['etcd', 'kube-apiserver', 'kwok'].flatMap((m) =>
    ['go.mod', 'go.sum', 'tools.go'].map((f) => `lab/controlplane/go/${m}/${f}`),
  ),
];

export function ccmManifest(root: RootManifest): Record<string, unknown> {
  return {
    name: root.name,
    version: root.version,
    description: root.description,
    license: root.license,
    type: 'module',
    engines: root.engines,
    bin: { 'wasm-ccm': BIN },
    exports: {
      './testing': { types: `${TESTING}.d.ts`, default: `${TESTING}.js` },
      './package.json': './package.json',
    },
    files: ['bin/', 'dist/', 'manifests/', 'scripts/', 'lab/', 'host/', 'README.md'],
    dependencies: root.dependencies,
  };
}

export function packCcm(): Packed {
  const stage = freshStage('wasm-ccm');
  const root = readJson<RootManifest>(join(REPO_ROOT, 'package.json'));
  writeJson(join(stage, 'package.json'), ccmManifest(root));
  // Importing cli.js runs `wasm-ccm dev`, or the CCM (and `wasm-ccm plugin test`): it sets its own exit status.
  const entry = 'dist/packages/wasm-ccm/src/cli.js';
  writeBinShim(stage, BIN, { command: 'wasm-ccm', engines: root.engines.node ?? '', entry });
  copyInto(stage, ['packages/wasm-ccm/README.md', 'manifests']);
  // manifests/README.md links the credentials file's and login flows' reference where it is in the repository.
  copyKeepingPaths(stage, [...CONTROL_PLANE_BUILD, 'host/src/plugin/README.md']);
  compileTypeScript('packages/wasm-ccm/tsconfig.json', join(stage, 'dist'));
  return npmPack(stage);
}
