import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPluginSource, PluginSourceError, sha256Hex } from '../../../host/src/plugin/source/plugin-source.ts';
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
