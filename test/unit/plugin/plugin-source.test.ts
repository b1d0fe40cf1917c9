import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadPluginSource, PluginSourceError, sha256Hex } from '../../../host/src/plugin/module/plugin-source.ts';
import { ModuleGzipError, unpackModule } from '../../../host/src/plugin/module/module-gzip.ts';
import { gzipBomb } from '../../support/gzip-bomb.ts';
import { buildModule } from './support/wasm-builder.ts';

const module = buildModule({ memory: { min: 1 } });

describe('plugin source', () => {
  it('loads bytes and reports their digest', async () => {
    const loaded = await loadPluginSource({ bytes: module, name: 'p.wasm' }, sha256Hex(module));
    expect(loaded).toMatchObject({ label: 'p.wasm', sha256: sha256Hex(module) });
    expect(loaded.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('loads from a path, accepting a sha256:-prefixed upper-case pin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-source-'));
    writeFileSync(join(dir, 'provider.wasm'), module);
    const loaded = await loadPluginSource(
      { path: join(dir, 'provider.wasm') },
      `sha256:${sha256Hex(module).toUpperCase()}`,
    );
    expect(loaded.label).toBe('provider.wasm');
    await expect(loadPluginSource({ path: join(dir, 'missing.wasm') })).rejects.toThrow(
      /cannot read plugin .*missing\.wasm/,
    );
  });

  it('decompresses a gzipped module (by name or by magic) before the pin, under the cap', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-source-'));
    writeFileSync(join(dir, 'provider.wasm.gz'), gzipSync(module));
    const loaded = await loadPluginSource({ path: join(dir, 'provider.wasm.gz') }, sha256Hex(module));
    expect(loaded).toMatchObject({ label: 'provider.wasm.gz', sha256: sha256Hex(module) });
    expect(loaded.bytes).toEqual(module);
    const byMagic = await loadPluginSource({ bytes: gzipSync(module), name: 'p.wasm' });
    expect(byMagic.sha256).toBe(sha256Hex(module));
    await expect(
      loadPluginSource({ bytes: gzipSync(new Uint8Array(4096)), name: 'p' }, undefined, 1024),
    ).rejects.toThrow(
      'plugin p decompresses to more than 1024 bytes (limits.maxModuleMB); refused, decompression stopped at the cap',
    );
    await expect(loadPluginSource({ bytes: module, name: 'p.wasm' }, undefined, module.length - 1)).rejects.toThrow(
      `plugin p.wasm is larger than ${module.length - 1} bytes (limits.maxModuleMB)`,
    );
    await expect(loadPluginSource({ bytes: module, name: 'p.wasm.gz' })).rejects.toThrow(
      'plugin p.wasm.gz ends in .gz but does not start with the gzip magic 1f 8b',
    );
    await expect(
      loadPluginSource({ bytes: Uint8Array.from([0x1f, 0x8b, 8, 0, 1, 2, 3]), name: 'p.gz' }),
    ).rejects.toThrow(/^plugin p\.gz is not valid gzip data: /);
  });

  it('refuses a module file over the cap by its size, before reading it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-source-'));
    const path = join(dir, 'provider.wasm');
    // Sparse: 3 GiB on disk costs nothing, and reading it first would fail otherwise (over Node's 2 GiB read limit).
    const fd = openSync(path, 'w');
    ftruncateSync(fd, 3 * 1024 * 1024 * 1024);
    closeSync(fd);
    try {
      await expect(loadPluginSource({ path })).rejects.toThrow(
        `cannot read plugin ${path}: larger than 64 MiB (limits.maxModuleMB)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops inflating a bomb at the cap: 1 GiB never lands in memory', async () => {
    const bomb = await gzipBomb(1024 * 1024 * 1024);
    expect(bomb.byteLength).toBeLessThan(1.1 * 1024 * 1024);
    const before = process.memoryUsage().rss;
    const error = await unpackModule(bomb, 'bomb.wasm.gz', 64 * 1024 * 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModuleGzipError);
    expect((error as ModuleGzipError).code).toBe('ModuleTooLarge');
    // The cap (64 MiB) plus zlib's last chunk and allocator slack; the whole expansion would be 1024 MiB.
    expect((process.memoryUsage().rss - before) / 1048576).toBeLessThan(256);
  });

  it('refuses a digest mismatch before looking at the content', async () => {
    const tampered = Uint8Array.from(module);
    tampered[tampered.length - 1] = (tampered.at(-1) ?? 0) ^ 1;
    await expect(loadPluginSource({ bytes: tampered }, sha256Hex(module))).rejects.toThrow(/SHA-256 mismatch/);
    // Not even Wasm: with a pin, the mismatch is what is reported (nothing else ran first).
    await expect(loadPluginSource({ bytes: new TextEncoder().encode('hello') }, sha256Hex(module))).rejects.toThrow(
      /SHA-256 mismatch/,
    );
  });

  it('hashes exactly the bytes of a view, not the buffer behind it', async () => {
    const buffer = new Uint8Array(module.length + 64).fill(0xaa);
    buffer.set(module, 32);
    const view = buffer.subarray(32, 32 + module.length);
    const loaded = await loadPluginSource({ bytes: view }, sha256Hex(module));
    expect(loaded.sha256).toBe(sha256Hex(module));
    expect(loaded.sha256).not.toBe(sha256Hex(buffer));
  });

  it('refuses bytes that are not a WebAssembly module, and malformed pins', async () => {
    await expect(loadPluginSource({ bytes: new TextEncoder().encode('MZ\x90\x00') })).rejects.toThrow(
      /not a WebAssembly module/,
    );
    await expect(loadPluginSource({ bytes: module }, 'abc123')).rejects.toThrow(PluginSourceError);
  });
});
