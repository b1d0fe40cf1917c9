// Builds small WebAssembly modules byte by byte, for tests of the binary reader, the memory cap and the import
// policy: faster than compiling AssemblyScript, and able to produce modules asc never would.
import { encodeUnsigned } from '../../../../host/src/plugin/module/leb128.ts';

export type ValType = 'i32' | 'i64';
const VAL: Record<ValType, number> = { i32: 0x7f, i64: 0x7e };

export interface FuncTypeSpec {
  params: ValType[];
  results: ValType[];
}

export interface ImportSpec {
  module: string;
  name: string;
  /** A function import of this type, or a memory import with these limits. */
  func?: FuncTypeSpec;
  memory?: { min: number; max?: number };
  global?: ValType;
}

export interface FunctionSpec {
  type: FuncTypeSpec;
  /** Instructions (without locals and the final `end`). */
  code: number[];
  export?: string;
}

export interface ModuleSpec {
  imports?: ImportSpec[];
  memory?: { min: number; max?: number; shared?: boolean; memory64?: boolean };
  exportMemory?: boolean;
  functions?: FunctionSpec[];
  /** Raw extra sections appended at the end (id, content). */
  extraSections?: Array<[number, number[]]>;
}

const name = (s: string): number[] => {
  const bytes = [...new TextEncoder().encode(s)];
  return [...encodeUnsigned(bytes.length), ...bytes];
};
const vec = (items: number[][]): number[] => [...encodeUnsigned(items.length), ...items.flat()];
const section = (id: number, content: number[]): number[] => [id, ...encodeUnsigned(content.length), ...content];
const limits = (l: { min: number; max?: number; shared?: boolean; memory64?: boolean }): number[] => {
  const flags = (l.max !== undefined ? 1 : 0) | (l.shared ? 2 : 0) | (l.memory64 ? 4 : 0);
  return [flags, ...encodeUnsigned(l.min), ...(l.max !== undefined ? encodeUnsigned(l.max) : [])];
};

export function buildModule(spec: ModuleSpec): Uint8Array {
  const types: FuncTypeSpec[] = [];
  const typeIndex = (t: FuncTypeSpec): number => {
    const key = JSON.stringify(t);
    let i = types.findIndex((x) => JSON.stringify(x) === key);
    if (i < 0) i = types.push(t) - 1;
    return i;
  };
  const imports = (spec.imports ?? []).map((imp) => {
    if (imp.func) return [...name(imp.module), ...name(imp.name), 0x00, ...encodeUnsigned(typeIndex(imp.func))];
    if (imp.memory) return [...name(imp.module), ...name(imp.name), 0x02, ...limits(imp.memory)];
    return [...name(imp.module), ...name(imp.name), 0x03, VAL[imp.global ?? 'i32'], 0x00];
  });
  const functions = spec.functions ?? [];
  const funcTypeIndices = functions.map((f) => typeIndex(f.type));
  const importedFuncs = (spec.imports ?? []).filter((i) => i.func).length;

  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (types.length > 0) {
    out.push(
      ...section(
        1,
        vec(types.map((t) => [0x60, ...vec(t.params.map((p) => [VAL[p]])), ...vec(t.results.map((r) => [VAL[r]]))])),
      ),
    );
  }
  if (imports.length > 0) out.push(...section(2, vec(imports)));
  if (functions.length > 0) out.push(...section(3, vec(funcTypeIndices.map((i) => [...encodeUnsigned(i)]))));
  if (spec.memory) out.push(...section(5, vec([limits(spec.memory)])));
  const exports: number[][] = [];
  if (spec.exportMemory) exports.push([...name('memory'), 0x02, 0x00]);
  functions.forEach((f, i) => {
    if (f.export) exports.push([...name(f.export), 0x00, ...encodeUnsigned(importedFuncs + i)]);
  });
  if (exports.length > 0) out.push(...section(7, vec(exports)));
  if (functions.length > 0) {
    out.push(
      ...section(
        10,
        vec(
          functions.map((f) => {
            const body = [0x00, ...f.code, 0x0b];
            return [...encodeUnsigned(body.length), ...body];
          }),
        ),
      ),
    );
  }
  for (const [id, content] of spec.extraSections ?? []) out.push(...section(id, content));
  return Uint8Array.from(out);
}

/** Instructions. */
export const op = {
  localGet: (i: number): number[] => [0x20, ...encodeUnsigned(i)],
  i32Const: (v: number): number[] => [0x41, ...encodeUnsigned(v)], // non-negative values below 64 only
  memoryGrow: [0x40, 0x00],
  memorySize: [0x3f, 0x00],
};
