// @wasm-ccm/devcloud: the simulated IaaS the template's worked example speaks, so a new provider project's unit
// tests, conformance kit and `wasm-ccm dev` run green before the vendor points them at a cloud of their own. It
// depends on nothing of wasm-ccm's: devcloud/src compiled to JavaScript, its README, fastify.
import { join } from 'node:path';
import { writeBinShim } from './bin-shim.ts';
import {
  type Packed,
  compileTypeScript,
  copyInto,
  freshStage,
  npmPack,
  PackError,
  readJson,
  REPO_ROOT,
  writeJson,
} from './stage.ts';

const BIN = 'bin/devcloud.cjs';

interface RootManifest {
  version: string;
  license: string;
  engines: { node: string };
  dependencies: Record<string, string>;
}

export function devcloudManifest(root: RootManifest): Record<string, unknown> {
  const fastify = root.dependencies.fastify;
  if (fastify === undefined) throw new PackError('package.json has no fastify dependency: devcloud needs it');
  return {
    name: '@wasm-ccm/devcloud',
    version: root.version,
    description: "devcloud, wasm-ccm's simulated IaaS: a provider's first kit run and local cluster need no cloud",
    license: root.license,
    type: 'module',
    engines: root.engines,
    bin: { devcloud: BIN },
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './package.json': './package.json',
    },
    files: ['bin/', 'dist/', 'README.md'],
    dependencies: { fastify },
  };
}

export function packDevcloud(): Packed {
  const stage = freshStage('devcloud');
  const root = readJson<RootManifest>(join(REPO_ROOT, 'package.json'));
  writeJson(join(stage, 'package.json'), devcloudManifest(root));
  // Importing main.js runs devcloud: it sets its own exit status.
  writeBinShim(stage, BIN, { command: 'devcloud', engines: root.engines.node, entry: 'dist/main.js' });
  copyInto(stage, ['devcloud/README.md']);
  compileTypeScript('packages/devcloud/tsconfig.json', join(stage, 'dist'));
  return npmPack(stage);
}
