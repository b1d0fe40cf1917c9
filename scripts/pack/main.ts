// `npm run pack`: the release packages, each staged under dist/packages/stage/ and packed to dist/packages/*.tgz.
import { relative } from 'node:path';
import { packCcm } from './ccm.ts';
import { packCreate } from './create.ts';
import { packDevcloud } from './devcloud.ts';
import { packSdk } from './sdk.ts';
import { PackError, REPO_ROOT } from './stage.ts';

try {
  for (const p of [packSdk(), packCcm(), packDevcloud(), packCreate()]) {
    const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
    console.log(
      `${relative(REPO_ROOT, p.tarball)}  ${kib(p.size)} (${p.entryCount} files, ${kib(p.unpackedSize)} unpacked)`,
    );
  }
} catch (err) {
  if (!(err instanceof PackError)) throw err;
  console.error(`npm run pack: ${err.message}`);
  process.exitCode = 1;
}
