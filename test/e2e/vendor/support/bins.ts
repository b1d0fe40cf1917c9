// The commands a release installs (each tarball's package.json "bin"), and the processes a command leaves running.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PackedBin {
  /** The command's name, e.g. wasm-ccm. */
  command: string;
  /** The file the bin links to, in the unpacked package. */
  path: string;
  /** The package's engines.node. */
  engines: string;
}

/** Unpacks `tarball` under `dir` and lists its bins. */
export function unpackBins(tarball: string, dir: string): PackedBin[] {
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  const root = join(dir, 'package');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    bin?: Record<string, string>;
    engines?: { node?: string };
  };
  return Object.entries(manifest.bin ?? {}).map(([command, file]) => ({
    command,
    path: join(root, file),
    engines: manifest.engines?.node ?? '',
  }));
}

/** The version of a Node.js binary, e.g. 20.20.2. */
export function nodeVersion(node: string): string {
  return execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
}

/** Every process below `pid` (Linux /proc), children before grandchildren. */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  let level = [pid];
  while (level.length > 0) {
    level = [...parentOf].filter(([, parent]) => level.includes(parent)).map(([child]) => child);
    found.push(...level);
  }
  return found;
}

/** Whether `pid` still runs: a zombie (exited, not yet reaped by whoever inherited it) does not. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
