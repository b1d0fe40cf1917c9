// The release a vendor downloads: `npm run pack`'s tarballs, copied out of the repository into the vendor's folder.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './commands.ts';

export interface Release {
  dir: string;
  sdk: string;
  ccm: string;
  devcloud: string;
  create: string;
}

/** Runs `npm run pack` in the repository and copies dist/packages/*.tgz to `dir`. */
export function packRelease(dir: string): Release {
  const packed = join(REPO_ROOT, 'dist', 'packages');
  // Tarballs of earlier versions (an SDK of a former ABI minor) would match the patterns below as well.
  rmSync(packed, { recursive: true, force: true });
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'pack', 'main.ts')], { cwd: REPO_ROOT, stdio: 'pipe' });
  mkdirSync(dir, { recursive: true });
  const find = (pattern: RegExp): string => {
    const file = readdirSync(packed).find((f) => pattern.test(f));
    if (file === undefined) throw new Error(`npm run pack made no ${pattern} in ${packed}`);
    copyFileSync(join(packed, file), join(dir, file));
    return join(dir, file);
  };
  return {
    dir,
    sdk: find(/^wasm-ccm-plugin-sdk-\d.*\.tgz$/),
    ccm: find(/^wasm-ccm-\d.*\.tgz$/),
    devcloud: find(/^wasm-ccm-devcloud-\d.*\.tgz$/),
    create: find(/^create-wasm-ccm-provider-\d.*\.tgz$/),
  };
}

/** The files of a tarball, relative to its package folder. */
export function packedFiles(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.startsWith('package/'))
    .map((l) => l.slice('package/'.length));
}
