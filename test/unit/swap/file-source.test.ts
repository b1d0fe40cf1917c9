// The file source against kubelet's atomic ConfigMap-volume writer (simulated in a temp directory): a swap of
// `..data` is noticed within a second (by fs.watch, and by the poll alone), and a revision is only ever read whole.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSource } from '../../../host/src/plugin/swap/file-source.ts';
import type { SourceRevision } from '../../../host/src/plugin/swap/source.ts';
import { recordingLogger } from '../plugin/support/recording-logger.ts';
import { kubeletWrite, removeKeyLink } from '../../support/kubelet-writer.ts';

const KEY = 'provider.wasm';

/** Distinct, recognisable module contents: a version byte repeated, so a torn read would show a mix or a short file. */
function moduleBytes(version: number, size = 256 * 1024): Uint8Array {
  return new Uint8Array(size).fill(version);
}

function collect(): { revisions: SourceRevision[]; next(timeoutMs?: number): Promise<SourceRevision> } {
  const revisions: SourceRevision[] = [];
  let seen = 0;
  return {
    revisions,
    async next(timeoutMs = 3_000) {
      const deadline = Date.now() + timeoutMs;
      while (revisions.length <= seen) {
        if (Date.now() > deadline) throw new Error(`no revision within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return revisions[seen++] as SourceRevision;
    },
  };
}

describe('file source on a kubelet-managed ConfigMap volume', () => {
  let dir: string;
  let source: FileSource | undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-volume-'));
    await kubeletWrite(dir, { [KEY]: moduleBytes(1), [`${KEY}.sig`]: 'c2lnMQ==' });
  });

  afterEach(async () => {
    await source?.stop();
    source = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the current revision, with its signature, through the resolved ..data directory', async () => {
    source = new FileSource({ path: join(dir, KEY) });
    const first = await source.start(() => {});
    expect(first.bytes).toEqual(moduleBytes(1));
    expect(first.signature).toBe('c2lnMQ==');
    expect(first.origin).toMatch(
      new RegExp(`^file ${dir}/${KEY.replace('.', '\\.')} \\(${dir}/\\.\\.[^/]+/${KEY}\\)$`),
    );
    expect(first.object).toBeUndefined();
  });

  it.each([
    ['fs.watch', true],
    ['the poll alone', false],
  ])('notices a ..data swap within 1 s through %s', async (_how, watch) => {
    const got = collect();
    source = new FileSource({ path: join(dir, KEY), watch });
    await source.start((r) => got.revisions.push(r));
    for (const version of [2, 3]) {
      const { swappedAt } = await kubeletWrite(dir, { [KEY]: moduleBytes(version), [`${KEY}.sig`]: `sig${version}` });
      const revision = await got.next();
      expect(revision.bytes).toEqual(moduleBytes(version));
      expect(revision.signature).toBe(`sig${version}`);
      expect(revision.noticedAt - swappedAt).toBeLessThan(1_000);
    }
    expect(got.revisions).toHaveLength(2);
  });

  it('never reads a revision while kubelet is still writing it', async () => {
    const got = collect();
    source = new FileSource({ path: join(dir, KEY), pollIntervalMs: 20 });
    await source.start((r) => got.revisions.push(r));
    let swapAt = 0;
    // 20 chunks, 25 ms apart: ~0.5 s during which the new directory exists, half-written, next to ..data.
    await kubeletWrite(
      dir,
      { [KEY]: moduleBytes(7, 512 * 1024) },
      { chunks: 20, chunkDelayMs: 25, beforeSwap: () => (swapAt = Date.now()) },
    );
    const revision = await got.next();
    expect(revision.noticedAt).toBeGreaterThanOrEqual(swapAt);
    expect(revision.bytes.length).toBe(512 * 1024);
    expect(revision.bytes.every((b) => b === 7)).toBe(true);
    // The new directory had no signature: none is reported (not the previous revision's).
    expect(revision.signature).toBeUndefined();
  });

  it('under rapid swaps reports only whole revisions and ends on the newest', async () => {
    const got = collect();
    source = new FileSource({ path: join(dir, KEY), pollIntervalMs: 10 });
    await source.start((r) => got.revisions.push(r));
    for (let version = 10; version < 30; version++) {
      await kubeletWrite(dir, { [KEY]: moduleBytes(version, 64 * 1024) });
    }
    const deadline = Date.now() + 3_000;
    while (got.revisions.at(-1)?.bytes[0] !== 29 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(got.revisions.at(-1)?.bytes[0]).toBe(29);
    for (const r of got.revisions) {
      expect(r.bytes.length).toBe(64 * 1024);
      expect(new Set(r.bytes).size).toBe(1);
    }
  });

  it('keeps quiet while the key is missing and reports it once it is back', async () => {
    const got = collect();
    source = new FileSource({ path: join(dir, KEY), pollIntervalMs: 20 });
    await source.start((r) => got.revisions.push(r));
    await removeKeyLink(dir, KEY);
    await source.checkNow();
    expect(got.revisions).toHaveLength(0);
    await kubeletWrite(dir, { [KEY]: moduleBytes(4) });
    expect((await got.next()).bytes).toEqual(moduleBytes(4));
  });

  it('refuses a module file over maxBytes by its size, at start and once per revision after', async () => {
    await expect(new FileSource({ path: join(dir, KEY), maxBytes: 128 * 1024 }).start(() => {})).rejects.toThrow(
      /provider\.wasm is larger than 131072 bytes \(limits\.maxModuleMB\)/,
    );
    const got = collect();
    const { logger, records } = recordingLogger();
    source = new FileSource({ path: join(dir, KEY), maxBytes: 512 * 1024, pollIntervalMs: 20, logger });
    await source.start((r) => got.revisions.push(r));
    await kubeletWrite(dir, { [KEY]: moduleBytes(2, 1024 * 1024) });
    const deadline = Date.now() + 3_000;
    while (!records.some((r) => r.level === 'warn') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    await kubeletWrite(dir, { [KEY]: moduleBytes(3) });
    expect((await got.next()).bytes).toEqual(moduleBytes(3));
    expect(got.revisions).toHaveLength(1);
    const warnings = records.filter((r) => r.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields.error).toMatch(/larger than 524288 bytes/);
  });

  it('does not report a touch that leaves the module as it was', async () => {
    const got = collect();
    source = new FileSource({ path: join(dir, KEY), pollIntervalMs: 20 });
    await source.start((r) => got.revisions.push(r));
    writeFileSync(join(dir, 'unrelated'), 'x');
    await source.checkNow();
    expect(got.revisions).toHaveLength(0);
  });

  it('notices a plain file replaced by rename, and refuses to start without the file', async () => {
    const plain = join(dir, 'plain.wasm');
    writeFileSync(plain, moduleBytes(1, 1024));
    const got = collect();
    source = new FileSource({ path: plain });
    await source.start((r) => got.revisions.push(r));
    writeFileSync(`${plain}.new`, moduleBytes(2, 2048));
    const { renameSync } = await import('node:fs');
    renameSync(`${plain}.new`, plain);
    const revision = await got.next();
    expect(revision.bytes).toEqual(moduleBytes(2, 2048));
    expect(revision.origin).toBe(`file ${plain}`);

    const missing = new FileSource({ path: join(dir, 'none.wasm') });
    await expect(missing.start(() => {})).rejects.toThrow(/cannot read plugin .*none\.wasm: ENOENT/);
  });

  it("refuses to start on a FIFO or a device in the module's place instead of waiting on it or reading it", async () => {
    const fifo = join(dir, 'fifo.wasm');
    execFileSync('mkfifo', [fifo]);
    await expect(new FileSource({ path: fifo }).start(() => {})).rejects.toThrow(
      /cannot read plugin .*fifo\.wasm: not a regular file \(a FIFO\)/,
    );
    await expect(new FileSource({ path: '/dev/zero' }).start(() => {})).rejects.toThrow(
      'cannot read plugin /dev/zero: not a regular file (a character device)',
    );
  });
});
