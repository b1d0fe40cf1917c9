// create-wasm-ccm-provider: the project template. Its generator compiled to JavaScript, the AssemblyScript modules it
// copies, and versions.json, the versions of the SDK and the CCM released with it (what a new project depends on).
import { join } from 'node:path';
import { repositoryVersions } from '../../packages/create-wasm-ccm-provider/src/versions.ts';
import { writeBinShim } from './bin-shim.ts';
import { type Packed, compileTypeScript, copyInto, freshStage, npmPack, REPO_ROOT, writeJson } from './stage.ts';

const BIN = 'bin/create-wasm-ccm-provider.cjs';
const ENGINES = '>=22.18';

export function packCreate(): Packed {
  const stage = freshStage('create-wasm-ccm-provider');
  const versions = repositoryVersions(REPO_ROOT);
  writeJson(join(stage, 'versions.json'), versions);
  writeJson(join(stage, 'package.json'), {
    name: 'create-wasm-ccm-provider',
    // The template follows the SDK: `npm create wasm-ccm-provider@1.7` writes a provider for ABI 1.7.
    version: versions.sdk,
    description: 'Scaffolds a wasm-ccm cloud-provider plugin project: npm create wasm-ccm-provider my-cloud',
    license: 'Apache-2.0',
    type: 'module',
    engines: { node: ENGINES },
    bin: { 'create-wasm-ccm-provider': BIN },
    files: ['bin/', 'dist/', 'template/', 'versions.json', 'README.md'],
  });
  writeBinShim(stage, BIN, {
    command: 'create-wasm-ccm-provider',
    engines: ENGINES,
    entry: 'dist/create.js',
    run: 'createMain',
  });
  copyInto(stage, ['packages/create-wasm-ccm-provider/template', 'packages/create-wasm-ccm-provider/README.md']);
  compileTypeScript('packages/create-wasm-ccm-provider/tsconfig.json', join(stage, 'dist'));
  return npmPack(stage);
}
