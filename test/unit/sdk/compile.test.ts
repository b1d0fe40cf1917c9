import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CompileError, compileAssemblyScript } from '../../../plugin-sdk/tools/compile.ts';
import { forbiddenImports } from '../../../plugin-sdk/tools/imports.ts';
import { FIXTURES, load } from '../../../lab/plugins/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'ccm-sdk-compile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('compileAssemblyScript', () => {
  it('refuses a module importing functions the host cannot link, naming each', async () => {
    const err = await compileAssemblyScript(join(FIXTURES, 'forbidden.ts'), { optimize: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CompileError);
    const text = (err as CompileError).diagnostics;
    expect(text).toContain('extism:host/env.log_trace (function): fails to link on Extism 1.0.3');
    expect(text).toContain('wasi_snapshot_preview1.proc_exit (function): the sandbox has no WASI');
  });

  it('can skip the import check (for fault-injection modules)', async () => {
    const r = await compileAssemblyScript(join(FIXTURES, 'forbidden.ts'), { optimize: false, checkImports: false });
    expect(r.imports.map((i) => `${i.module}.${i.name}`).sort()).toEqual([
      'extism:host/env.log_trace',
      'wasi_snapshot_preview1.proc_exit',
    ]);
  });

  it("builds a provider without a note or warning from the SDK's own code", async () => {
    const entry = join(import.meta.dirname, '..', '..', '..', 'plugins', 'example', 'assembly', 'index.ts');
    const r = await compileAssemblyScript(entry, { optimize: false });
    expect(r.diagnostics).toBe('');
  });

  it('reports compiler diagnostics with the file and line', async () => {
    const entry = join(scratch, 'broken.ts');
    writeFileSync(entry, 'export function f(): i32 {\n  return "not a number";\n}\n');
    const err = await compileAssemblyScript(entry, { optimize: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CompileError);
    expect((err as CompileError).diagnostics).toMatch(/TS2322[\s\S]*in broken\.ts\(2,10\)/);
  });

  it('compiles a module outside the repository that imports the SDK by package name, never env.abort', async () => {
    const entry = join(scratch, 'tiny.ts');
    writeFileSync(
      entry,
      [
        'import { Host } from "@extism/as-pdk";',
        'import { JsonWriter } from "@wasm-ccm/plugin-sdk";',
        'export function hello(): i32 {',
        '  const w = new JsonWriter();',
        '  w.string("grüße");',
        '  Host.output(w.toBytes());',
        '  return 0;',
        '}',
        'export function boom(): i32 {',
        '  const a = new Array<i32>(1);',
        '  return a[5];',
        '}',
      ].join('\n'),
    );
    const cache = join(scratch, 'cache');
    const first = await compileAssemblyScript(entry, { optimize: false, cacheDir: cache });
    expect(first.imports.some((i) => i.module === 'env')).toBe(false);
    expect(forbiddenImports(first.imports)).toEqual([]);
    const again = await compileAssemblyScript(entry, { optimize: false, cacheDir: cache });
    expect(again.elapsedMs).toBeLessThan(first.elapsedMs / 5); // served from the cache
    expect(again.wasm).toEqual(first.wasm);

    const plugin = await load(first.wasm);
    try {
      expect(await plugin.call('hello')).toBe('"grüße"');
      await expect(plugin.call('boom')).rejects.toThrow(/unreachable/);
      expect(plugin.host.logs).toEqual([
        { level: 'error', message: expect.stringMatching(/^plugin aborted: Index out of range at ~lib\//), fields: {} },
      ]);
    } finally {
      await plugin.plugin.close();
    }
  });
});
