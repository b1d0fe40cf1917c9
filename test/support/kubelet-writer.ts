// What kubelet's AtomicWriter does to a ConfigMap volume, reproduced in a temp directory: each update writes a new
// `..<timestamp>` directory, points a `..data_tmp` symlink at it and renames that over `..data` (the one atomic
// step), adds `<key> -> ..data/<key>` links for new keys, then removes the previous timestamped directory.
import { mkdir, open, readlink, rename, rm, symlink, unlink } from 'node:fs/promises';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';

let counter = 0;

export interface WriteOptions {
  /** Write each file in this many chunks, pausing between them (a slow writer must never be read half-way). */
  chunks?: number;
  chunkDelayMs?: number;
  /** Called after the files are written and before `..data` moves (the last moment the old revision is current). */
  beforeSwap?: () => void;
}

export async function kubeletWrite(
  dir: string,
  files: Record<string, Uint8Array | string>,
  options: WriteOptions = {},
): Promise<{ swappedAt: number }> {
  const stamp = `..${new Date().toISOString().replace(/[-:.]/g, '_')}_${process.pid}_${counter++}`;
  const target = join(dir, stamp);
  await mkdir(target);
  for (const [key, content] of Object.entries(files)) {
    const bytes = typeof content === 'string' ? Buffer.from(content) : Buffer.from(content);
    const chunks = Math.max(1, options.chunks ?? 1);
    const size = Math.ceil(bytes.length / chunks);
    const handle = await open(join(target, key), 'w');
    try {
      for (let at = 0; at < bytes.length; at += size) {
        await handle.write(bytes.subarray(at, at + size));
        if (options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
      }
    } finally {
      await handle.close();
    }
  }
  const data = join(dir, '..data');
  const previous = existsSync(data) ? await readlink(data) : undefined;
  options.beforeSwap?.();
  const tmp = join(dir, '..data_tmp');
  await symlink(stamp, tmp);
  await rename(tmp, data);
  const swappedAt = Date.now();
  for (const key of Object.keys(files)) {
    const link = join(dir, key);
    if (!lstatExists(link)) await symlink(join('..data', key), link);
  }
  if (previous !== undefined) await rm(join(dir, previous), { recursive: true, force: true });
  return { swappedAt };
}

/** Removes a key's link (the ConfigMap lost the key). */
export async function removeKeyLink(dir: string, key: string): Promise<void> {
  await unlink(join(dir, key));
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
