// Reads the parts of a WebAssembly module's binary the host must judge before compiling it: its sections, function
// types, imports, tables, memories, element segments and exports. Anything the reader does not understand is refused rather than skipped over,
// because the memory cap and the import policy depend on reading these sections exactly.
import { readUnsigned, WasmFormatError } from './leb128.ts';
import { SectionReader as Reader } from './section-reader.ts';
import { countElementEntries, type DefinedTable, readTables, readTableType, type TableLimits } from './table-reader.ts';

export type { DefinedTable } from './table-reader.ts';

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d] as const;
const WASM_VERSION = [0x01, 0x00, 0x00, 0x00] as const;

export const SectionId = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
} as const;

// Sections whose content is read here: each must be read exactly to its end.
const READ_SECTIONS: ReadonlySet<number> = new Set([
  SectionId.type,
  SectionId.import,
  SectionId.table,
  SectionId.memory,
  SectionId.export,
  SectionId.element,
]);

export type ValueType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128' | 'funcref' | 'externref';

const VALUE_TYPES: Record<number, ValueType> = {
  0x7f: 'i32',
  0x7e: 'i64',
  0x7d: 'f32',
  0x7c: 'f64',
  0x7b: 'v128',
  0x70: 'funcref',
  0x6f: 'externref',
};

export interface FunctionType {
  params: ValueType[];
  results: ValueType[];
}

export interface MemoryLimits {
  minPages: number;
  /** undefined: the module declares no maximum. */
  maxPages: number | undefined;
  shared: boolean;
  memory64: boolean;
}

export type ImportDescriptor =
  | { kind: 'function'; typeIndex: number }
  | { kind: 'table'; limits: TableLimits }
  | { kind: 'memory'; limits: MemoryLimits }
  | { kind: 'global' }
  | { kind: 'tag' };

export interface WasmImport {
  module: string;
  name: string;
  descriptor: ImportDescriptor;
}

export type ExportKind = 'function' | 'table' | 'memory' | 'global' | 'tag';

export interface WasmExport {
  name: string;
  kind: ExportKind;
  index: number;
}

export interface SectionSpan {
  id: number;
  /** Offset of the section id byte. */
  start: number;
  /** Offset of the section's content (after the id and size). */
  contentStart: number;
  /** Offset just after the section. */
  end: number;
}

export interface WasmModuleInfo {
  sections: SectionSpan[];
  types: FunctionType[];
  imports: WasmImport[];
  /** Tables the module defines itself (its table section). */
  tables: DefinedTable[];
  /** Memories the module defines itself (its memory section). */
  memories: MemoryLimits[];
  /** Entries of all element segments together. */
  elementEntries: number;
  exports: WasmExport[];
}

/** True when the bytes start with the Wasm magic number and binary format version 1. */
export function hasWasmHeader(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  return WASM_MAGIC.every((b, i) => bytes[i] === b) && WASM_VERSION.every((b, i) => bytes[i + 4] === b);
}

export function readModule(bytes: Uint8Array): WasmModuleInfo {
  if (bytes.length < 8 || !WASM_MAGIC.every((b, i) => bytes[i] === b)) {
    throw new WasmFormatError('not a WebAssembly module (bad magic number)');
  }
  if (!WASM_VERSION.every((b, i) => bytes[i + 4] === b)) {
    throw new WasmFormatError(`unsupported WebAssembly binary version ${Array.from(bytes.subarray(4, 8)).join('.')}`);
  }
  const info: WasmModuleInfo = {
    sections: [],
    types: [],
    imports: [],
    tables: [],
    memories: [],
    elementEntries: 0,
    exports: [],
  };
  let offset = 8;
  while (offset < bytes.length) {
    const id = bytes[offset] as number;
    const size = readUnsigned(bytes, offset + 1);
    const span: SectionSpan = { id, start: offset, contentStart: size.next, end: size.next + size.value };
    if (span.end > bytes.length) throw new WasmFormatError(`section ${id} at offset ${offset} runs past the end`);
    // A second section of a kind would be read over the first: V8 refuses it too, but the cap must not depend on that.
    if (id !== SectionId.custom && info.sections.some((s) => s.id === id)) {
      throw new WasmFormatError(`section ${id} appears twice (the second at offset ${offset})`);
    }
    info.sections.push(span);
    readSection(info, id, new Reader(bytes, span.contentStart, span.end));
    offset = span.end;
  }
  return info;
}

function readSection(info: WasmModuleInfo, id: number, reader: Reader): void {
  if (!READ_SECTIONS.has(id)) return;
  if (id === SectionId.type) info.types = readTypes(reader);
  else if (id === SectionId.import) info.imports = readImports(reader);
  else if (id === SectionId.table) info.tables = readTables(reader);
  else if (id === SectionId.memory) info.memories = reader.vector(() => readLimits(reader));
  else if (id === SectionId.export) info.exports = readExports(reader);
  else info.elementEntries = countElementEntries(reader);
  if (!reader.atEnd()) throw new WasmFormatError(`section ${id} has ${reader.end - reader.offset} trailing bytes`);
}

function valueType(reader: Reader): ValueType {
  const code = reader.byte();
  const type = VALUE_TYPES[code];
  if (type === undefined) throw new WasmFormatError(`unsupported value type 0x${code.toString(16)}`);
  return type;
}

function readTypes(reader: Reader): FunctionType[] {
  return reader.vector(() => {
    const form = reader.byte();
    if (form !== 0x60)
      throw new WasmFormatError(`unsupported type form 0x${form.toString(16)} (GC types are not supported)`);
    return { params: reader.vector(() => valueType(reader)), results: reader.vector(() => valueType(reader)) };
  });
}

function readLimits(reader: Reader): MemoryLimits {
  const flags = reader.byte();
  if (flags > 0x07) throw new WasmFormatError(`unsupported limits flags 0x${flags.toString(16)}`);
  const memory64 = (flags & 0x04) !== 0;
  const bits = memory64 ? 64 : 32;
  const minPages = reader.unsigned(bits);
  const maxPages = (flags & 0x01) !== 0 ? reader.unsigned(bits) : undefined;
  return { minPages, maxPages, shared: (flags & 0x02) !== 0, memory64 };
}

function readImports(reader: Reader): WasmImport[] {
  return reader.vector(() => {
    const module = reader.name();
    const name = reader.name();
    const kind = reader.byte();
    let descriptor: ImportDescriptor;
    switch (kind) {
      case 0x00:
        descriptor = { kind: 'function', typeIndex: reader.unsigned() };
        break;
      case 0x01: {
        const { refType, minEntries, maxEntries, table64 } = readTableType(reader);
        descriptor = { kind: 'table', limits: { refType, minEntries, maxEntries, table64 } };
        break;
      }
      case 0x02:
        descriptor = { kind: 'memory', limits: readLimits(reader) };
        break;
      case 0x03:
        valueType(reader);
        reader.byte();
        descriptor = { kind: 'global' };
        break;
      case 0x04:
        reader.byte();
        reader.unsigned();
        descriptor = { kind: 'tag' };
        break;
      default:
        throw new WasmFormatError(`unsupported import kind 0x${kind.toString(16)} for ${module}.${name}`);
    }
    return { module, name, descriptor };
  });
}

/**
 * Exports a module may have. The ABI needs a few dozen (the ccm_* functions, the memory). V8 keeps a wrapper per
 * exported function of every instance (Wasm code GC is off: module/engine-flags.ts): a module of 100,000 exports
 * left the process's RSS 27% higher once closed, and reading their names took 220-420 ms of the main thread.
 */
const MAX_EXPORTS = 1000;

/** A module over a count the host allows (exports), refused before anything else is made of it. */
export class ExportPolicyError extends Error {
  override name = 'ExportPolicyError';
}

const EXPORT_KINDS: ExportKind[] = ['function', 'table', 'memory', 'global', 'tag'];

function readExports(reader: Reader): WasmExport[] {
  // Judged on the count, before any export is read. A count longer than the section is vector()'s format error.
  const count = readUnsigned(reader.bytes, reader.offset).value;
  if (count > MAX_EXPORTS && count <= reader.end - reader.offset) {
    throw new ExportPolicyError(`the module has ${count} exports, above the cap of ${MAX_EXPORTS}`);
  }
  return reader.vector(() => {
    const name = reader.name();
    const code = reader.byte();
    const kind = EXPORT_KINDS[code];
    if (kind === undefined) throw new WasmFormatError(`unsupported export kind 0x${code.toString(16)} for ${name}`);
    return { name, kind, index: reader.unsigned() };
  });
}
