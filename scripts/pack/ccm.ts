// wasm-ccm: the CCM, its `wasm-ccm plugin test` conformance kit and the `wasm-ccm/testing` host for provider unit
// tests, compiled to JavaScript by the project's tsc build (nothing runs as TypeScript under node_modules). The
// manifest is the root package.json's name, version and runtime dependencies, with a bin and exports of its own.
import { join } from 'node:path';
import {
  type Packed,
  compileTypeScript,
  copyInto,
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
    files: ['bin/', 'dist/', 'manifests/', 'README.md'],
    dependencies: root.dependencies,
  };
}

export function packCcm(): Packed {
  const stage = freshStage('wasm-ccm');
  const root = readJson<RootManifest>(join(REPO_ROOT, 'package.json'));
  writeJson(join(stage, 'package.json'), ccmManifest(root));
  // Importing main.js runs the CCM (or `wasm-ccm plugin test`): it sets its own exit status.
  writeBinShim(stage, BIN, { command: 'wasm-ccm', engines: root.engines.node ?? '', entry: 'dist/host/src/main.js' });
  copyInto(stage, ['packages/wasm-ccm/README.md', 'manifests']);
  compileTypeScript('packages/wasm-ccm/tsconfig.json', join(stage, 'dist'));
  return npmPack(stage);
}
