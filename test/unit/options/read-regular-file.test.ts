// The one door for files an operator names: only a regular file (symlinks followed, judged on the opened descriptor)
// within its cap is read; a device, a FIFO or a directory is refused at once, never read or waited on.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkRegularFileSync,
  FileReadError,
  moduleFileCap,
  readRegularFile,
  readRegularFileSync,
  unreadableReason,
} from '../../../host/src/util/read-regular-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-regular-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);
const zeroLink = join(dir, 'zero-link');
symlinkSync('/dev/zero', zeroLink);
const directory = join(dir, 'a-directory');
mkdirSync(directory);
const plain = join(dir, 'plain.txt');
writeFileSync(plain, 'hello\n');
const big = join(dir, 'big.bin');
writeFileSync(big, Buffer.alloc(200_000, 7));

const CAP = { maxBytes: 100_000 };
const readers = {
  sync: (path: string, cap = CAP) => Promise.resolve().then(() => readRegularFileSync(path, cap)),
  async: (path: string, cap = CAP) => readRegularFile(path, cap),
};

describe.each(Object.entries(readers))('reading an operator-named file (%s)', (_kind, read) => {
  it.each([
    ['/dev/zero', '/dev/zero', 'not a regular file (a character device)'],
    ['a symlink to /dev/zero', zeroLink, 'not a regular file (a character device)'],
    ['a FIFO with no writer', fifo, 'not a regular file (a FIFO)'],
    ['a directory', directory, 'not a regular file (a directory)'],
    ['a file over the cap', big, 'larger than 100000 bytes'],
  ])('refuses %s without reading it', async (_what, path, reason) => {
    const started = performance.now();
    const err = await read(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileReadError);
    expect((err as Error).message).toBe(reason);
    expect(unreadableReason(err)).toBe(reason);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('reads a regular file whole, and one whose size stat reports as 0 (/proc) to its end', async () => {
    expect((await read(plain)).toString()).toBe('hello\n');
    expect((await read(big, { maxBytes: 200_000 })).equals(Buffer.alloc(200_000, 7))).toBe(true);
    expect((await read('/proc/self/status')).toString()).toMatch(/^Name:/);
  });

  it('names the cap that refused the file, and reports a missing one by its errno', async () => {
    await expect(read(big, moduleFileCap(1048576 / 16))).rejects.toThrow('larger than 64 KiB (limits.maxModuleMB)');
    const missing = await read(join(dir, 'none')).catch((e: unknown) => e);
    expect((missing as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(unreadableReason(missing)).toBe('no such file');
  });
});

describe('checking an operator-named file without reading it', () => {
  it('returns the size of a regular file and refuses the rest alike', () => {
    expect(checkRegularFileSync(big, { maxBytes: 200_000 })).toBe(200_000);
    expect(() => checkRegularFileSync(fifo, CAP)).toThrow('not a regular file (a FIFO)');
    expect(() => checkRegularFileSync(zeroLink, CAP)).toThrow('not a regular file (a character device)');
    expect(() => checkRegularFileSync(big, CAP)).toThrow('larger than 100000 bytes');
  });
});
