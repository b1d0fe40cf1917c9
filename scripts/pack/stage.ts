// What every package's staging shares: the repository's paths, a clean staging folder, files copied in, TypeScript
// compiled with the project's own tsc, and `npm pack` of the staged folder into dist/packages/.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PACKAGES_OUT = join(REPO_ROOT, 'dist', 'packages');
export const STAGING = join(PACKAGES_OUT, 'stage');
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

export class PackError extends Error {
  readonly code = 'PACK_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PackError';
  }
}

/** An empty staging folder for one package. */
export function freshStage(name: string): string {
  const dir = join(STAGING, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Copies repository paths (files or folders) into the stage, keeping their names, skipping `skip` matches. */
export function copyInto(stage: string, paths: readonly string[], skip: RegExp = /(^|\/)(build|node_modules)(\/|$)/) {
  for (const path of paths) {
    cpSync(join(REPO_ROOT, path), join(stage, basename(path)), {
      recursive: true,
      filter: (source) => !skip.test(source.slice(REPO_ROOT.length)),
    });
  }
}

/** Copies repository files into the stage at the same relative paths (a script that finds its peers by path). */
export function copyKeepingPaths(stage: string, paths: readonly string[]): void {
  for (const path of paths) {
    mkdirSync(join(stage, dirname(path)), { recursive: true });
    cpSync(join(REPO_ROOT, path), join(stage, path), { recursive: true });
  }
}

/** Compiles a package's TypeScript with its tsconfig (the project's compiler options, its own files and outDir). */
export function compileTypeScript(tsconfig: string, outDir: string): void {
  try {
    execFileSync(process.execPath, [TSC, '-p', join(REPO_ROOT, tsconfig), '--outDir', outDir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const out = err as { stdout?: Buffer; stderr?: Buffer };
    throw new PackError(`tsc -p ${tsconfig} failed:\n${out.stdout?.toString() ?? ''}${out.stderr?.toString() ?? ''}`, {
      cause: err,
    });
  }
}

export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

export interface Packed {
  tarball: string;
  /** Bytes of the tarball, and of its files unpacked. */
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/** `npm pack` of a staged folder into dist/packages/. */
export function npmPack(stage: string): Packed {
  mkdirSync(PACKAGES_OUT, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', PACKAGES_OUT], {
    cwd: stage,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [info] = JSON.parse(out) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
  if (info === undefined) throw new PackError(`npm pack in ${stage} reported no tarball`);
  const { size, unpackedSize, entryCount } = info;
  return { tarball: join(PACKAGES_OUT, info.filename), size, unpackedSize, entryCount };
}
