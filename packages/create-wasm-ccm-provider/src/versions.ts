// The versions a new project depends on. A packed create-wasm-ccm-provider carries them in versions.json (written
// by `npm run pack`); run from the repository, they are read from the SDK's and the CCM's package.json.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Versions {
  sdk: string;
  ccm: string;
  /** @wasm-ccm/devcloud's: released with the CCM, at its version. */
  devcloud: string;
  assemblyscript: string;
  asPdk: string;
}

const read = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/** Versions from the repository: the SDK's own and its peers', and the CCM's. */
export function repositoryVersions(repoRoot: string): Versions {
  const sdk = read(join(repoRoot, 'plugin-sdk', 'package.json')) as {
    version: string;
    peerDependencies: Record<string, string>;
  };
  const ccm = read(join(repoRoot, 'package.json')) as { version: string };
  return {
    sdk: sdk.version,
    ccm: ccm.version,
    devcloud: ccm.version,
    assemblyscript: sdk.peerDependencies.assemblyscript ?? '',
    asPdk: sdk.peerDependencies['@extism/as-pdk'] ?? '',
  };
}

export function currentVersions(): Versions {
  const packed = join(import.meta.dirname, '..', 'versions.json');
  if (existsSync(packed)) return read(packed) as unknown as Versions;
  return repositoryVersions(join(import.meta.dirname, '..', '..', '..'));
}
