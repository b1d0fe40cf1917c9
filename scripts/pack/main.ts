// `npm run pack`: the release packages, each staged under dist/packages/stage/ and packed to dist/packages/*.tgz.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { packCcm } from './ccm.ts';
import { packCreate } from './create.ts';
import { packSdk } from './sdk.ts';
import { PackError, REPO_ROOT } from './stage.ts';

try {
  for (const tarball of [packSdk(), packCcm(), packCreate()]) {
    console.log(`${relative(REPO_ROOT, tarball)}  ${(statSync(tarball).size / 1024).toFixed(1)} KiB`);
  }
} catch (err) {
  if (!(err instanceof PackError)) throw err;
  console.error(`npm run pack: ${err.message}`);
  process.exitCode = 1;
}
