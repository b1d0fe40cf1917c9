// @wasm-ccm/plugin-sdk: the AssemblyScript sources and preset as they are, and its tools (compile, the import check)
// compiled to JavaScript with declarations, so they run under node_modules (Node does not strip types there).
import { join } from 'node:path';
import {
  type Packed,
  compileTypeScript,
  copyInto,
  freshStage,
  npmPack,
  PackError,
  readJson,
  REPO_ROOT,
} from './stage.ts';
import { writeBinShim } from './bin-shim.ts';

interface AbiFile {
  abi: { major: number; minor: number };
}

/** The SDK's version must state the ABI it targets: 1.7.x for ABI 1.7. */
export function checkSdkVersion(version: string, abi: AbiFile['abi']): void {
  if (!version.startsWith(`${abi.major}.${abi.minor}.`)) {
    throw new PackError(`plugin-sdk/package.json version ${version} does not state ABI ${abi.major}.${abi.minor}`);
  }
}

export function packSdk(): Packed {
  const stage = freshStage('plugin-sdk');
  const sdk = join(REPO_ROOT, 'plugin-sdk');
  const manifest = readJson<{ version: string; engines: { node: string }; bin: Record<string, string> }>(
    join(sdk, 'package.json'),
  );
  const { version } = manifest;
  checkSdkVersion(version, readJson<AbiFile>(join(sdk, 'abi', 'v1.json')).abi);
  copyInto(
    stage,
    ['index.ts', 'exports.ts', 'asconfig.json', 'assembly', 'abi', 'ABI.md', 'README.md', 'package.json'].map((f) =>
      join('plugin-sdk', f),
    ),
  );
  compileTypeScript('packages/plugin-sdk/tsconfig.json', join(stage, 'tools'));
  const bin = manifest.bin['wasm-ccm-check-imports'];
  if (bin === undefined) throw new PackError('plugin-sdk/package.json has no bin wasm-ccm-check-imports');
  writeBinShim(stage, bin, {
    command: 'wasm-ccm-check-imports',
    engines: manifest.engines.node,
    entry: 'tools/check-imports.js',
    run: 'checkImportsMain',
  });
  return npmPack(stage);
}
