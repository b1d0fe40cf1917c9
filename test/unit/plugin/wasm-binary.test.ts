import { describe, expect, it } from 'vitest';
import { encodeUnsigned, readUnsigned, WasmFormatError } from '../../../host/src/plugin/module/leb128.ts';
import { capLinearMemory, MemoryPolicyError, WASM_PAGE_BYTES } from '../../../host/src/plugin/module/memory-cap.ts';
import { hasWasmHeader, readModule } from '../../../host/src/plugin/module/module-reader.ts';
import { buildModule, op } from './support/wasm-builder.ts';

const MiB = 1024 * 1024;

describe('LEB128', () => {
  it('round-trips values across byte boundaries', () => {
    for (const value of [0, 1, 63, 64, 127, 128, 255, 16_383, 16_384, 65_536, 2 ** 32 - 1, 2 ** 40 + 7]) {
      const encoded = encodeUnsigned(value);
      expect(readUnsigned(encoded, 0, 64)).toEqual({ value, next: encoded.length });
    }
  });

  it('encodes in the shortest form', () => {
    expect([...encodeUnsigned(0)]).toEqual([0]);
    expect([...encodeUnsigned(127)]).toEqual([0x7f]);
    expect([...encodeUnsigned(128)]).toEqual([0x80, 0x01]);
    expect([...encodeUnsigned(624_485)]).toEqual([0xe5, 0x8e, 0x26]);
  });

  it('reads non-minimal encodings and stops at the right offset', () => {
    // 3 padded to 5 bytes, followed by another byte.
    expect(readUnsigned(Uint8Array.of(0x83, 0x80, 0x80, 0x80, 0x00, 0x2a), 0)).toEqual({ value: 3, next: 5 });
  });

  it('refuses truncated, over-long and out-of-range values', () => {
    expect(() => readUnsigned(Uint8Array.of(0x80, 0x80), 0)).toThrow(WasmFormatError);
    expect(() => readUnsigned(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 0)).toThrow(/longer than 5 bytes/);
    expect(() => readUnsigned(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x1f), 0)).toThrow(/exceeds 32 bits/);
    expect(() => encodeUnsigned(-1)).toThrow(RangeError);
  });
});

describe('module reader', () => {
  it('recognises the header and refuses what is not Wasm', () => {
    expect(hasWasmHeader(buildModule({}))).toBe(true);
    expect(hasWasmHeader(new TextEncoder().encode('#!/bin/sh\necho'))).toBe(false);
    expect(() => readModule(new TextEncoder().encode('not wasm at all'))).toThrow(/bad magic number/);
    expect(() => readModule(Uint8Array.of(0, 0x61, 0x73, 0x6d, 2, 0, 0, 0))).toThrow(
      /unsupported WebAssembly binary version/,
    );
  });

  it('reads types, imports, memory and exports', () => {
    const bytes = buildModule({
      imports: [{ module: 'extism:host/user', name: 'ccm_http', func: { params: ['i64'], results: ['i64'] } }],
      memory: { min: 2, max: 10 },
      exportMemory: true,
      functions: [{ type: { params: [], results: ['i32'] }, code: op.i32Const(0), export: 'ccm_describe' }],
    });
    const info = readModule(bytes);
    expect(info.types).toEqual([
      { params: ['i64'], results: ['i64'] },
      { params: [], results: ['i32'] },
    ]);
    expect(info.imports).toEqual([
      { module: 'extism:host/user', name: 'ccm_http', descriptor: { kind: 'function', typeIndex: 0 } },
    ]);
    expect(info.memories).toEqual([{ minPages: 2, maxPages: 10, shared: false, memory64: false }]);
    expect(info.exports).toEqual([
      { name: 'memory', kind: 'memory', index: 0 },
      { name: 'ccm_describe', kind: 'function', index: 1 },
    ]);
  });

  it('refuses a section that runs past the end of the module', () => {
    const bytes = buildModule({ memory: { min: 1 } });
    expect(() => readModule(bytes.subarray(0, bytes.length - 1))).toThrow(/runs past the end/);
  });

  it('skips custom sections', () => {
    const bytes = buildModule({ memory: { min: 1 }, extraSections: [[0, [4, 0x6e, 0x61, 0x6d, 0x65, 1, 2, 3]]] });
    expect(readModule(bytes).memories).toHaveLength(1);
  });
});

describe('linear memory cap', () => {
  const growFunction = {
    type: { params: ['i32' as const], results: ['i32' as const] },
    code: [...op.localGet(0), ...op.memoryGrow],
    export: 'grow',
  };

  async function instantiate(
    bytes: Uint8Array,
  ): Promise<{ grow: (pages: number) => number; memory: WebAssembly.Memory }> {
    const instance = await WebAssembly.instantiate(await WebAssembly.compile(bytes));
    return instance.exports as unknown as { grow: (pages: number) => number; memory: WebAssembly.Memory };
  }

  it('adds the cap as maximum to a memory without one, and growing past it fails inside the guest', async () => {
    const bytes = buildModule({ memory: { min: 1 }, exportMemory: true, functions: [growFunction] });
    const capped = capLinearMemory(bytes, 4 * WASM_PAGE_BYTES);
    expect(capped).toMatchObject({ declaredMaxPages: undefined, effectiveMaxPages: 4, rewritten: true });
    expect(readModule(capped.bytes).memories[0]).toMatchObject({ minPages: 1, maxPages: 4 });
    const { grow, memory } = await instantiate(capped.bytes);
    expect(grow(3)).toBe(1); // old size in pages
    expect(grow(1)).toBe(-1); // memory.grow past the maximum answers -1
    expect(memory.buffer.byteLength).toBe(4 * WASM_PAGE_BYTES);
    // The original module grows freely: the cap is what stops it.
    expect((await instantiate(bytes)).grow(10)).toBe(1);
  });

  it('lowers a maximum above the cap and keeps one below it', () => {
    const high = buildModule({ memory: { min: 1, max: 65_536 } });
    expect(capLinearMemory(high, 256 * MiB)).toMatchObject({
      declaredMaxPages: 65_536,
      effectiveMaxPages: 4096,
      rewritten: true,
    });
    const low = buildModule({ memory: { min: 1, max: 16 } });
    const kept = capLinearMemory(low, 256 * MiB);
    expect(kept).toMatchObject({ declaredMaxPages: 16, effectiveMaxPages: 16, rewritten: false });
    expect(kept.bytes).toBe(low);
  });

  it('keeps every other section intact, byte for byte', async () => {
    const bytes = buildModule({
      imports: [{ module: 'extism:host/user', name: 'ccm_now_ms', func: { params: [], results: ['i64'] } }],
      memory: { min: 3 },
      exportMemory: true,
      functions: [growFunction],
      extraSections: [[0, [3, 0x61, 0x62, 0x63, 9, 9, 9]]],
    });
    const capped = capLinearMemory(bytes, 8 * WASM_PAGE_BYTES).bytes;
    const before = readModule(bytes);
    const after = readModule(capped);
    expect(after.imports).toEqual(before.imports);
    expect(after.exports).toEqual(before.exports);
    const spans = (info: ReturnType<typeof readModule>, source: Uint8Array): string[] =>
      info.sections.filter((s) => s.id !== 5).map((s) => Buffer.from(source.subarray(s.start, s.end)).toString('hex'));
    expect(spans(after, capped)).toEqual(spans(before, bytes));
    expect(WebAssembly.validate(capped)).toBe(true);
  });

  it('refuses imported, shared, 64-bit and oversized memories', () => {
    const imported = buildModule({ imports: [{ module: 'env', name: 'memory', memory: { min: 1 } }] });
    expect(() => capLinearMemory(imported, 256 * MiB)).toThrow(/imports its memory \(env\.memory\)/);
    expect(() => capLinearMemory(buildModule({ memory: { min: 1, max: 2, shared: true } }), 256 * MiB)).toThrow(
      MemoryPolicyError,
    );
    expect(() => capLinearMemory(buildModule({ memory: { min: 1, memory64: true } }), 256 * MiB)).toThrow(/64-bit/);
    expect(() => capLinearMemory(buildModule({ memory: { min: 5000 } }), 256 * MiB)).toThrow(
      /needs 312\.50 MiB of memory at start, above the cap of 256 MiB/,
    );
  });

  it('leaves a module without memory alone', () => {
    const bytes = buildModule({});
    expect(capLinearMemory(bytes, 256 * MiB)).toMatchObject({ rewritten: false, bytes });
  });
});
