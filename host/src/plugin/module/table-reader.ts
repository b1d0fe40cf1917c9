// Reads what the table cap needs of a module: each table's type and limits (with where its limits sit, to rewrite
// them) and how many entries the element segments hold. A funcref or externref table lives on the worker's V8 heap,
// not in the capped linear memory, so its size must be judged before the module is compiled. Anything the reader does
// not understand is refused rather than skipped over.
import { WasmFormatError } from './leb128.ts';
import type { SectionReader } from './section-reader.ts';

export interface TableLimits {
  /** funcref, externref, or `ref <heap type>` for a typed reference. */
  refType: string;
  minEntries: number;
  /** undefined: the table declares no maximum. */
  maxEntries: number | undefined;
  table64: boolean;
}

export interface DefinedTable extends TableLimits {
  /** Offsets of the limits' bytes (flags, minimum, maximum) within the module, to rewrite them. */
  limitsStart: number;
  limitsEnd: number;
}

const REF_TYPES: Record<number, string> = { 0x70: 'funcref', 0x6f: 'externref' };

/** A table type: a reference type then limits (table section entries and table imports). */
export function readTableType(reader: SectionReader): DefinedTable {
  const refType = readRefType(reader);
  const limitsStart = reader.offset;
  const flags = reader.byte();
  if (flags !== 0x00 && flags !== 0x01 && flags !== 0x04 && flags !== 0x05) {
    throw new WasmFormatError(`unsupported table limits flags 0x${flags.toString(16)} at offset ${limitsStart}`);
  }
  const table64 = (flags & 0x04) !== 0;
  const bits = table64 ? 64 : 32;
  const minEntries = reader.unsigned(bits);
  const maxEntries = (flags & 0x01) !== 0 ? reader.unsigned(bits) : undefined;
  return { refType, minEntries, maxEntries, table64, limitsStart, limitsEnd: reader.offset };
}

/** The table section: `reftype limits`, or `0x40 0x00 reftype limits init-expr` (typed function references). */
export function readTables(reader: SectionReader): DefinedTable[] {
  return reader.vector(() => {
    if (reader.bytes[reader.offset] !== 0x40) return readTableType(reader);
    reader.byte();
    const reserved = reader.byte();
    if (reserved !== 0x00) throw new WasmFormatError(`table with initializer has reserved byte 0x${hex(reserved)}`);
    const table = readTableType(reader);
    skipConstantExpression(reader);
    return table;
  });
}

/**
 * The element section: returns the number of entries of all its segments together. Each segment's flags say whether
 * it names a table and an offset (active), and whether its entries are function indices or constant expressions.
 */
export function countElementEntries(reader: SectionReader): number {
  let entries = 0;
  const segments = reader.unsigned();
  for (let i = 0; i < segments; i++) {
    const flags = reader.unsigned();
    if (flags > 7) throw new WasmFormatError(`unsupported element segment flags ${flags} at offset ${reader.offset}`);
    const active = (flags & 0x01) === 0;
    const explicitTable = (flags & 0x02) !== 0;
    const expressions = (flags & 0x04) !== 0;
    if (active && explicitTable) reader.unsigned();
    if (active) skipConstantExpression(reader);
    if (!active || explicitTable) {
      if (expressions) readRefType(reader);
      else if (reader.byte() !== 0x00) throw new WasmFormatError(`unsupported element kind at offset ${reader.offset}`);
    }
    const count = reader.unsigned();
    if (count > reader.end - reader.offset) {
      throw new WasmFormatError(
        `element segment of ${count} entries at offset ${reader.offset} is longer than its section`,
      );
    }
    for (let j = 0; j < count; j++) {
      if (expressions) skipConstantExpression(reader);
      else reader.unsigned();
    }
    entries += count;
  }
  return entries;
}

function readRefType(reader: SectionReader): string {
  const at = reader.offset;
  const code = reader.byte();
  const known = REF_TYPES[code];
  if (known !== undefined) return known;
  if (code === 0x63 || code === 0x64) {
    reader.skipSigned(33);
    return code === 0x63 ? 'ref null' : 'ref';
  }
  throw new WasmFormatError(`unsupported table element type 0x${hex(code)} at offset ${at}`);
}

// Opcodes a constant expression may hold (MVP, reference types, extended constants), and how much follows each.
const CONSTANT_OPCODES: Record<number, (reader: SectionReader) => void> = {
  0x41: (r) => r.skipSigned(32), // i32.const
  0x42: (r) => r.skipSigned(64), // i64.const
  0x43: (r) => r.skip(4), // f32.const
  0x44: (r) => r.skip(8), // f64.const
  0x23: (r) => void r.unsigned(), // global.get
  0xd0: (r) => r.skipSigned(33), // ref.null heap type
  0xd2: (r) => void r.unsigned(), // ref.func
  0x6a: () => {}, // i32.add
  0x6b: () => {}, // i32.sub
  0x6c: () => {}, // i32.mul
  0x7c: () => {}, // i64.add
  0x7d: () => {}, // i64.sub
  0x7e: () => {}, // i64.mul
};

/** Steps over a constant expression up to and including its `end`; any other instruction is refused. */
function skipConstantExpression(reader: SectionReader): void {
  for (;;) {
    const at = reader.offset;
    const opcode = reader.byte();
    if (opcode === 0x0b) return;
    const operands = CONSTANT_OPCODES[opcode];
    if (operands === undefined) {
      throw new WasmFormatError(`unsupported instruction 0x${hex(opcode)} in a constant expression at offset ${at}`);
    }
    operands(reader);
  }
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, '0');
}
