// Reading a file an operator names (a flag, a field of the plugin configuration): it must be a regular file, and only
// up to a cap is ever read. `/dev/zero` (or a symlink to it) would otherwise be read to gigabytes, and a FIFO would
// block the open, then the read, forever. So the file is opened with O_NONBLOCK (a FIFO's open returns at once), the
// opened descriptor is fstat'ed (what was opened, symlinks followed, not a second look at the path that could see
// another file), and the bytes are read until end of file or one byte past the cap, whatever the size fstat gave
// (a file growing meanwhile, or /proc's size 0, cannot slip past it).
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { errorMessage } from './error-message.ts';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const CHUNK_BYTES = 64 * 1024;

/**
 * Not a regular file, or over its cap. The message says why, not which file ("not a regular file (a FIFO)",
 * "larger than 4 MiB"): callers put it after the path and the flag or field that named it.
 */
export class FileReadError extends Error {
  override name = 'FileReadError';
}

export interface FileCap {
  maxBytes: number;
  /** What sets the cap, shown after it: `limits.maxModuleMB`. */
  setBy?: string;
}

/** Configuration files: the plugin configuration, a cloud config, a credentials file, a kubeconfig, a fixture. */
export const CONFIG_FILE_CAP: FileCap = { maxBytes: 4 * 1048576 };
/** A PEM public key, a detached signature, an AWS key file: a few hundred bytes each. */
export const KEY_FILE_CAP: FileCap = { maxBytes: 64 * 1024 };

/** A plugin module file (gzipped or not): the provider's `limits.maxModuleMB`. */
export function moduleFileCap(maxBytes: number): FileCap {
  return { maxBytes, setBy: 'limits.maxModuleMB' };
}

/** Reads all of `path`, which must be a regular file within the cap. */
export function readRegularFileSync(path: string, cap: FileCap): Buffer {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const size = checkOpened(fstatSync(fd), cap);
    return collect(size, cap, (chunk) => readSync(fd, chunk, 0, chunk.length, null));
  } finally {
    closeSync(fd);
  }
}

/** The same, without blocking the event loop. */
export async function readRegularFile(path: string, cap: FileCap): Promise<Buffer> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    const size = checkOpened(await handle.stat(), cap);
    return await collectAsync(handle, size, cap);
  } finally {
    await handle.close();
  }
}

/** Checks that `path` opens as a regular file within the cap, without reading it; returns its size. */
export function checkRegularFileSync(path: string, cap: FileCap): number {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    return checkOpened(fstatSync(fd), cap);
  } finally {
    closeSync(fd);
  }
}

/** A reason to show after a path: the FileReadError's message, or the errno code (`ENOENT` as "no such file"). */
export function unreadableReason(err: unknown): string {
  if (err instanceof FileReadError) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  return code ?? errorMessage(err);
}

/** Reads with `read` (into the chunk given; 0 at end of file) until end of file, failing one byte past the cap. */
function collect(size: number, cap: FileCap, read: (chunk: Buffer) => number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (let chunk = firstChunk(size, cap); ; chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES)) {
    const n = read(chunk);
    if (n === 0) break;
    total += n;
    if (total > cap.maxBytes) throw tooLarge(cap);
    chunks.push(chunk.subarray(0, n));
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

async function collectAsync(handle: FileHandle, size: number, cap: FileCap): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (let chunk = firstChunk(size, cap); ; chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES)) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > cap.maxBytes) throw tooLarge(cap);
    chunks.push(chunk.subarray(0, bytesRead));
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

// The whole file plus one byte when fstat's size is right: end of file then shows without a second buffer.
function firstChunk(size: number, cap: FileCap): Buffer {
  return Buffer.allocUnsafeSlow(Math.min(size, cap.maxBytes) + 1);
}

function checkOpened(stats: Stats, cap: FileCap): number {
  if (!stats.isFile()) throw new FileReadError(`not a regular file (${fileKind(stats)})`);
  if (stats.size > cap.maxBytes) throw tooLarge(cap);
  return stats.size;
}

function tooLarge(cap: FileCap): FileReadError {
  return new FileReadError(`larger than ${sizeText(cap.maxBytes)}${cap.setBy === undefined ? '' : ` (${cap.setBy})`}`);
}

function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a plain file';
}

function sizeText(bytes: number): string {
  if (bytes % 1048576 === 0) return `${bytes / 1048576} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
