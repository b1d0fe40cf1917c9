// Differential fuzzing of the module reader and the caps against V8: the reader sits on a trust boundary (any bytes a
// ConfigMap holds reach it), so mutated modules must either be refused with the reader's own errors or come out of
// the caps as a module V8 judges exactly as it judged the input, with every table and memory under its cap.
import { beforeAll, describe, expect, it } from 'vitest';
import { ImportPolicyError, checkImports } from '../../../host/src/plugin/module/import-policy.ts';
import { WasmFormatError } from '../../../host/src/plugin/module/leb128.ts';
import { capLinearMemory, MemoryPolicyError, WASM_PAGE_BYTES } from '../../../host/src/plugin/module/memory-cap.ts';
import { ExportPolicyError, readModule, SectionId } from '../../../host/src/plugin/module/module-reader.ts';
import { capTables, TablePolicyError } from '../../../host/src/plugin/module/table-cap.ts';
import { buildModule, op } from './support/wasm-builder.ts';
import { assembleWat } from '../../../lab/plugins/index.ts';

const TABLE_CAP = 64;
const MEMORY_CAP_PAGES = 8;
const MUTANTS_PER_SEED = 4000;
const OUR_ERRORS = [WasmFormatError, MemoryPolicyError, TablePolicyError, ImportPolicyError, ExportPolicyError];

let seeds: Uint8Array[] = [];

beforeAll(() => {
  const features = ['reference-types', 'bulk-memory', 'exception-handling'] as const;
  seeds = [
    assembleWat(
      `(module
        (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
        (memory (export "memory") 1)
        (table $t (export "t") 2 funcref)
        (table $u (export "u") 1 100 externref)
        (func $f (result i32) (i32.const 7))
        (elem (table $t) (i32.const 0) func $f $f)
        (elem func $f)
        (elem declare func $f)
        (data (i32.const 16) "hello")
        (func (export "grow") (param i32) (result i32) (table.grow $t (ref.null func) (local.get 0))))`,
      [...features],
    ),
    assembleWat(
      `(module
        (memory (export "memory") 2 300)
        (table (export "t") 3 5 funcref)
        (global $g i32 (i32.const 1))
        (func $a) (func $b)
        (elem (i32.const 0) funcref (ref.func $a) (ref.null func) (ref.func $b))
        (tag $e (param i32))
        (func (export "run") (result i32) (try (result i32) (do (i32.const 1)) (catch_all (i32.const 0)))))`,
      [...features],
    ),
    // A table with an initializer expression (function references), exported: written by hand, as wasm-as does not.
    Uint8Array.from([
      ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      ...[0x04, 0x09, 0x01, 0x40, 0x00, 0x70, 0x00, 0x02, 0xd0, 0x70, 0x0b],
      ...[0x07, 0x05, 0x01, 0x01, 0x74, 0x01, 0x00],
    ]),
    buildModule({
      imports: [{ module: 'extism:host/user', name: 'ccm_now_ms', func: { params: [], results: ['i64'] } }],
      memory: { min: 1 },
      exportMemory: true,
      functions: [{ type: { params: ['i32'], results: ['i32'] }, code: [...op.localGet(0), ...op.memoryGrow] }],
    }),
  ];
});

// A small deterministic generator, so a failure reproduces from its seed and index.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INTERESTING = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x0b, 0x40, 0x6f, 0x70, 0x7f, 0x80, 0xff];

function mutate(bytes: Uint8Array, next: () => number): Uint8Array {
  const out = [...bytes];
  const edits = next() < 0.6 ? 1 : 2 + Math.floor(next() * 2);
  for (let e = 0; e < edits; e++) {
    // Past the header, where the sections are.
    const at = 8 + Math.floor(next() * Math.max(1, out.length - 8));
    const choice = next();
    const value =
      next() < 0.5 ? (INTERESTING[Math.floor(next() * INTERESTING.length)] as number) : Math.floor(next() * 256);
    if (choice < 0.5) out[at] = value;
    else if (choice < 0.7) out.splice(at, 0, value);
    else if (choice < 0.85) out.splice(at, 1);
    else out.splice(at, 0, ...out.slice(at, at + 1 + Math.floor(next() * 8)));
  }
  return Uint8Array.from(out);
}

type Outcome = { refused: Error } | { accepted: Uint8Array };

function prepare(bytes: Uint8Array): Outcome {
  try {
    const info = readModule(bytes);
    checkImports(info);
    const memory = capLinearMemory(bytes, MEMORY_CAP_PAGES * WASM_PAGE_BYTES, info);
    const tables = capTables(memory.bytes, TABLE_CAP, memory.rewritten ? readModule(memory.bytes) : info);
    return { accepted: tables.bytes };
  } catch (err) {
    return { refused: err as Error };
  }
}

// Instantiates what has no imports and no start function (a mutant's start function could loop), then checks that
// every exported table and memory stops growing at its cap.
function checkExportedGrowth(bytes: Uint8Array): void {
  const info = readModule(bytes);
  if (info.imports.length > 0 || info.sections.some((s) => s.id === SectionId.start)) return;
  let exports: WebAssembly.Exports;
  try {
    exports = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports;
  } catch {
    return; // a segment out of bounds, say: V8 refuses to instantiate, which is fine.
  }
  for (const value of Object.values(exports)) {
    if (value instanceof WebAssembly.Table) {
      expect(value.length).toBeLessThanOrEqual(TABLE_CAP);
      expect(() => value.grow(TABLE_CAP - value.length + 1)).toThrow(RangeError);
    } else if (value instanceof WebAssembly.Memory) {
      expect(() => value.grow(MEMORY_CAP_PAGES + 1)).toThrow(RangeError);
    }
  }
}

describe('module reader and caps against V8', () => {
  it('accept every seed, capped', () => {
    for (const seed of seeds) {
      expect(WebAssembly.validate(seed)).toBe(true);
      const outcome = prepare(seed);
      if ('refused' in outcome) throw outcome.refused;
      expect(WebAssembly.validate(outcome.accepted)).toBe(true);
      checkExportedGrowth(outcome.accepted);
    }
  });

  it('refuse mutated modules with their own errors only, and never let V8 judge the capped module otherwise', () => {
    const tally = { mutants: 0, refused: 0, accepted: 0, validByV8: 0, refusedButValid: 0 };
    seeds.forEach((seed, s) => {
      const next = random(0x5eed + s);
      for (let i = 0; i < MUTANTS_PER_SEED; i++) {
        const mutant = mutate(seed, next);
        const valid = WebAssembly.validate(mutant);
        const outcome = prepare(mutant);
        tally.mutants++;
        if (valid) tally.validByV8++;
        if ('refused' in outcome) {
          tally.refused++;
          if (valid) tally.refusedButValid++;
          const ours = OUR_ERRORS.some((type) => outcome.refused instanceof type);
          expect(ours, `seed ${s} mutant ${i}: ${outcome.refused.stack}`).toBe(true);
          continue;
        }
        tally.accepted++;
        expect(WebAssembly.validate(outcome.accepted), `seed ${s} mutant ${i}`).toBe(valid);
        if (valid) checkExportedGrowth(outcome.accepted);
      }
    });
    // Enough of the mutants must get through to V8's judgement for the comparison to mean something.
    expect(tally.validByV8).toBeGreaterThan(500);
    console.info('wasm reader fuzz', tally);
  });
});
