// `npm run pack`: the release packages, each staged under dist/packages/stage/ and packed to dist/packages/*.tgz.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { packCcm } from './ccm.ts';
import { packCreate } from './create.ts';
import { packSdk } from './sdk.ts';
import { REPO_ROOT } from './stage.ts';

const tarballs = [packSdk(), packCcm(), packCreate()];
for (const tarball of tarballs) {
  console.log(`${relative(REPO_ROOT, tarball)}  ${(statSync(tarball).size / 1024).toFixed(1)} KiB`);
}
