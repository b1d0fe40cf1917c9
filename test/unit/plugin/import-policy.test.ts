import { describe, expect, it } from 'vitest';
import { checkImports, ImportPolicyError } from '../../../host/src/plugin/module/import-policy.ts';
import { readModule } from '../../../host/src/plugin/module/module-reader.ts';
import { buildModule, type ImportSpec } from './support/wasm-builder.ts';

const check = (imports: ImportSpec[]): void => checkImports(readModule(buildModule({ imports })));
const violations = (imports: ImportSpec[]): readonly string[] => {
  try {
    check(imports);
  } catch (err) {
    if (err instanceof ImportPolicyError) return err.violations;
    throw err;
  }
  return [];
};
const i64ToI64 = { params: ['i64' as const], results: ['i64' as const] };

describe('import policy', () => {
  it('accepts the kernel functions and the wasm-ccm host functions with their signatures', () => {
    expect(() =>
      check([
        { module: 'extism:host/env', name: 'alloc', func: i64ToI64 },
        { module: 'extism:host/env', name: 'input_load_u8', func: { params: ['i64'], results: ['i32'] } },
        { module: 'extism:host/env', name: 'store_u64', func: { params: ['i64', 'i64'], results: [] } },
        { module: 'extism:host/env', name: 'output_set', func: { params: ['i64', 'i64'], results: [] } },
        { module: 'extism:host/user', name: 'ccm_http', func: i64ToI64 },
        { module: 'extism:host/user', name: 'ccm_http_bytes', func: { params: ['i32', 'i32'], results: ['i32'] } },
        { module: 'extism:host/user', name: 'ccm_http_answer_read', func: { params: ['i32', 'i32'], results: [] } },
        { module: 'extism:host/user', name: 'ccm_log', func: { params: ['i64'], results: [] } },
        { module: 'extism:host/user', name: 'ccm_now_ms', func: { params: [], results: ['i64'] } },
        { module: 'extism:host/user', name: 'ccm_input_read', func: { params: ['i32', 'i32'], results: [] } },
      ]),
    ).not.toThrow();
  });

  it('refuses ccm_input_read with any other signature (it takes wasm32 pointers)', () => {
    expect(
      violations([
        { module: 'extism:host/user', name: 'ccm_input_read', func: { params: ['i64', 'i64'], results: [] } },
      ]),
    ).toEqual(['extism:host/user.ccm_input_read: has type (i64, i64) -> (), expected (i32, i32) -> ()']);
  });

  it('refuses ccm_http_bytes and ccm_http_answer_read with other signatures (they take wasm32 pointers)', () => {
    expect(
      violations([
        { module: 'extism:host/user', name: 'ccm_http_bytes', func: i64ToI64 },
        { module: 'extism:host/user', name: 'ccm_http_answer_read', func: { params: ['i64', 'i64'], results: [] } },
      ]),
    ).toEqual([
      'extism:host/user.ccm_http_bytes: has type (i64) -> (i64), expected (i32, i32) -> (i32)',
      'extism:host/user.ccm_http_answer_read: has type (i64, i64) -> (), expected (i32, i32) -> ()',
    ]);
  });

  it('refuses WASI with a message saying there is none', () => {
    expect(
      violations([{ module: 'wasi_snapshot_preview1', name: 'fd_write', func: { params: ['i32'], results: ['i32'] } }]),
    ).toEqual([
      'wasi_snapshot_preview1.fd_write: WASI is not available to plugins (no file system, no environment, no clock); build without WASI',
    ]);
  });

  it('refuses env.abort and says how to build AssemblyScript without it', () => {
    const [message] = violations([
      { module: 'env', name: 'abort', func: { params: ['i32', 'i32', 'i32', 'i32'], results: [] } },
    ]);
    expect(message).toContain('--use abort=');
  });

  it('refuses the kernel functions js-sdk 1.0.3 lacks and Extism HTTP', () => {
    const found = violations([
      { module: 'extism:host/env', name: 'get_log_level', func: { params: [], results: ['i32'] } },
      { module: 'extism:host/env', name: 'log_trace', func: { params: ['i64'], results: [] } },
      { module: 'extism:host/env', name: 'http_headers', func: { params: [], results: ['i64'] } },
      { module: 'extism:host/env', name: 'http_request', func: { params: ['i64', 'i64'], results: ['i64'] } },
    ]);
    expect(found).toHaveLength(4);
    expect(found[0]).toMatch(/get_log_level: .*1\.0\.3 does not provide it/);
    expect(found[1]).toMatch(/log_trace: .*fail to link/);
    expect(found[3]).toMatch(/http_request: .*use the ccm_http host function/);
  });

  it('refuses wrong signatures, unknown names, unknown modules and non-function imports, all at once', () => {
    const found = violations([
      { module: 'extism:host/user', name: 'ccm_http', func: { params: ['i32'], results: ['i32'] } },
      { module: 'extism:host/user', name: 'ccm_exec', func: i64ToI64 },
      { module: 'evil', name: 'spawn', func: i64ToI64 },
      { module: 'extism:host/env', name: 'some_global', global: 'i32' },
    ]);
    expect(found).toEqual([
      'extism:host/user.ccm_http: has type (i32) -> (i32), expected (i64) -> (i64)',
      'extism:host/user.ccm_exec: no such function',
      "evil.spawn: unknown import module 'evil'",
      'extism:host/env.some_global is a global import (only functions may be imported)',
    ]);
  });
});
