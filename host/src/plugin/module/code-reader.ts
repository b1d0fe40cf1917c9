// Reads the code section instruction by instruction, so that the instruction policy (module/instruction-policy.ts)
// can find any instruction a plugin contains. Immediates are stepped over exactly; an opcode this reader does not know
// is refused, never skipped, since stepping over unknown bytes could hide an instruction inside them; and each body
// must end with the `end` that closes its outermost block exactly at its last byte.
//
// What it reads: the MVP, sign extension, saturating conversions, bulk memory, reference types, multi-value, fixed-
// width and relaxed SIMD, exception handling (legacy try/catch; try_table without exnref), typed function references'
// call_ref and branches on null, tail calls and atomics. It refuses the GC proposal's instructions (0xfb) and every
// value type but the numeric ones, v128, funcref and externref (so exnref, and with it the new exception handling's
// `catch_ref` results, too): the module reader refuses the same types in signatures, and a provider has no use for
// them.
//
// One loop over a byte table rather than a visitor per instruction: the reader runs on the main thread at every load
// and swap, mostly before V8 has optimized it.
import { WasmFormatError } from './leb128.ts';
import type { WasmModuleInfo } from './module-reader.ts';

const CODE_SECTION = 10;

/** An instruction's opcode: one byte, or a prefix byte and its LEB128 sub-opcode as `prefix << 16 | sub`. */
export type Opcode = number;

function prefixed(prefix: number, sub: number): Opcode {
  return (prefix << 16) | sub;
}

export interface FoundInstruction {
  opcode: Opcode;
  /** Offset of the instruction's first byte in the module. */
  offset: number;
  /** Index of its function body in the code section. */
  body: number;
}

// What follows each one-byte opcode.
const Imm = {
  None: 0,
  Index: 1,
  TwoIndices: 2,
  MemArg: 3,
  Block: 4,
  BrTable: 5,
  I32: 6,
  I64: 7,
  F32: 8,
  F64: 9,
  HeapType: 10,
  SelectTypes: 11,
  TryTable: 12,
  Prefix: 13,
  Unknown: 14,
} as const;
type Imm = (typeof Imm)[keyof typeof Imm];

const IMMEDIATES = buildImmediates();

function buildImmediates(): Uint8Array {
  const table = new Uint8Array(256).fill(Imm.Unknown);
  const set = (kind: Imm, ...opcodes: number[]): void => {
    for (const op of opcodes) table[op] = kind;
  };
  // unreachable nop else throw_ref end return catch_all drop select ref.is_null ref.eq ref.as_non_null
  set(Imm.None, 0x00, 0x01, 0x05, 0x0a, 0x0b, 0x0f, 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd4);
  for (let op = 0x45; op <= 0xc4; op++) table[op] = Imm.None; // numeric, sign extension included
  for (let op = 0x28; op <= 0x3e; op++) table[op] = Imm.MemArg; // loads and stores
  set(Imm.Block, 0x02, 0x03, 0x04, 0x06); // block loop if try
  // catch throw rethrow br br_if call return_call call_ref return_call_ref delegate local.* global.* table.get/set
  // memory.size memory.grow ref.func br_on_null br_on_non_null
  set(Imm.Index, 0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x14, 0x15, 0x18, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25);
  set(Imm.Index, 0x26, 0x3f, 0x40, 0xd2, 0xd5, 0xd6);
  set(Imm.TwoIndices, 0x11, 0x13); // call_indirect, return_call_indirect: type, table
  set(Imm.BrTable, 0x0e);
  set(Imm.I32, 0x41);
  set(Imm.I64, 0x42);
  set(Imm.F32, 0x43);
  set(Imm.F64, 0x44);
  set(Imm.HeapType, 0xd0); // ref.null
  set(Imm.SelectTypes, 0x1c);
  set(Imm.TryTable, 0x1f);
  set(Imm.Prefix, 0xfc, 0xfd, 0xfe);
  return table;
}

/** A cursor over one function body; every read stays inside it or throws. */
class BodyCursor {
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;

  constructor(bytes: Uint8Array, pos: number, end: number) {
    this.bytes = bytes;
    this.pos = pos;
    this.end = end;
  }

  byte(): number {
    if (this.pos >= this.end) throw new WasmFormatError(`unexpected end of a function body at offset ${this.pos}`);
    return this.bytes[this.pos++] as number;
  }

  /** A LEB128 of at most `maxBytes` bytes, its value when it fits in 32 bits (the caller decides if it matters). */
  leb(maxBytes: number): number {
    let value = 0;
    for (let i = 0; i < maxBytes; i++) {
      const b = this.byte();
      if (i < 4) value |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) return value >>> 0;
    }
    throw new WasmFormatError(`LEB128 longer than ${maxBytes} bytes at offset ${this.pos}`);
  }

  skip(count: number): void {
    if (this.pos + count > this.end) throw new WasmFormatError(`immediate runs past its function body at ${this.pos}`);
    this.pos += count;
  }
}

// How long the reader runs before it lets the event loop turn: a module of megabytes takes the main thread for
// longer than a plugin request may, so the reader yields between bodies.
const SLICE_MS = 8;

/**
 * Reads every function body and resolves to the first instruction whose opcode `wanted` holds (undefined if none);
 * rejects with a WasmFormatError on anything it cannot read exactly.
 */
export async function findInstruction(
  bytes: Uint8Array,
  info: WasmModuleInfo,
  wanted: ReadonlySet<Opcode>,
): Promise<FoundInstruction | undefined> {
  const span = info.sections.find((s) => s.id === CODE_SECTION);
  if (span === undefined) return undefined;
  const section = new BodyCursor(bytes, span.contentStart, span.end);
  const count = section.leb(5);
  let sliceStart = performance.now();
  for (let body = 0; body < count; body++) {
    const size = section.leb(5);
    const start = section.pos;
    section.skip(size);
    const found = readBody(new BodyCursor(bytes, start, start + size), body, wanted);
    if (found !== undefined) return found;
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  if (section.pos !== span.end) throw new WasmFormatError(`the code section has trailing bytes at ${section.pos}`);
  return undefined;
}

function readBody(cursor: BodyCursor, body: number, wanted: ReadonlySet<Opcode>): FoundInstruction | undefined {
  const groups = cursor.leb(5);
  for (let i = 0; i < groups; i++) {
    cursor.leb(5);
    valueType(cursor);
  }
  let depth = 1;
  while (depth > 0) {
    const offset = cursor.pos;
    const op = cursor.byte();
    if (op === 0x0b || op === 0x18)
      depth--; // end; delegate ends its try
    else if (op === 0x02 || op === 0x03 || op === 0x04 || op === 0x06 || op === 0x1f) depth++;
    const opcode = IMMEDIATES[op] === Imm.Prefix ? prefixed(op, cursor.leb(5)) : op;
    if (wanted.has(opcode)) return { opcode, offset, body };
    stepOverImmediates(cursor, op, opcode, offset);
  }
  if (cursor.pos !== cursor.end) {
    throw new WasmFormatError(`function body ${body} ends at offset ${cursor.pos}, before its last byte`);
  }
  return undefined;
}

function stepOverImmediates(cursor: BodyCursor, op: number, opcode: Opcode, offset: number): void {
  switch (IMMEDIATES[op] as Imm) {
    case Imm.None:
      return;
    case Imm.Index:
      return void cursor.leb(5);
    case Imm.TwoIndices:
      cursor.leb(5);
      return void cursor.leb(5);
    case Imm.MemArg:
      return memArg(cursor);
    case Imm.Block:
      return blockType(cursor);
    case Imm.BrTable:
      for (let n = cursor.leb(5); n > 0; n--) cursor.leb(5);
      return void cursor.leb(5);
    case Imm.I32:
    case Imm.HeapType:
      return void cursor.leb(5);
    case Imm.I64:
      return void cursor.leb(10);
    case Imm.F32:
      return cursor.skip(4);
    case Imm.F64:
      return cursor.skip(8);
    case Imm.SelectTypes:
      for (let n = cursor.leb(5); n > 0; n--) valueType(cursor);
      return;
    case Imm.TryTable:
      blockType(cursor);
      for (let n = cursor.leb(5); n > 0; n--) catchClause(cursor);
      return;
    case Imm.Prefix:
      return stepOverPrefixed(cursor, op, opcode & 0xffff, offset);
    default:
      throw unknown(opcode, offset);
  }
}

function stepOverPrefixed(cursor: BodyCursor, prefix: number, sub: number, offset: number): void {
  if (prefix === 0xfc) {
    if (sub <= 7) return; // saturating truncations
    // memory.init memory.copy table.init table.copy: two indices; data.drop memory.fill elem.drop table.grow
    // table.size table.fill: one.
    if (sub === 8 || sub === 10 || sub === 12 || sub === 14) cursor.leb(5);
    if (sub <= 17) return void cursor.leb(5);
  } else if (prefix === 0xfd) {
    if (sub <= 11 || sub === 92 || sub === 93) return memArg(cursor); // loads, store, load_zero
    if (sub === 12 || sub === 13) return cursor.skip(16); // v128.const, i8x16.shuffle
    if (sub >= 21 && sub <= 34) return cursor.skip(1); // extract_lane, replace_lane
    if (sub >= 84 && sub <= 91) {
      memArg(cursor);
      return cursor.skip(1); // load_lane, store_lane
    }
    if (sub <= 0x113) return; // the rest of SIMD and relaxed SIMD take no immediate
  } else if (prefix === 0xfe) {
    if (sub === 0x03) return cursor.skip(1); // atomic.fence
    if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e)) return memArg(cursor);
  }
  throw unknown(prefixed(prefix, sub), offset);
}

function memArg(cursor: BodyCursor): void {
  const flags = cursor.leb(5);
  if ((flags & 0x40) !== 0) cursor.leb(5); // multi-memory: the memory's index
  cursor.leb(10);
}

// i32 i64 f32 f64 v128 funcref externref: the module reader's value types.
function isValueType(code: number | undefined): boolean {
  return code !== undefined && ((code >= 0x7b && code <= 0x7f) || code === 0x70 || code === 0x6f);
}

function valueType(cursor: BodyCursor): void {
  const code = cursor.byte();
  if (!isValueType(code)) throw new WasmFormatError(`unsupported value type 0x${code.toString(16)} in code`);
}

function blockType(cursor: BodyCursor): void {
  const first = cursor.bytes[cursor.pos];
  // The empty type or a value type (one byte each), or a type index: a non-negative signed LEB128, whose first byte
  // is below 0x40 or has the continuation bit. Any other byte (typed references among them) is refused: read as a
  // one-byte LEB128 it would put this reader out of step with V8.
  if (first === 0x40 || isValueType(first)) {
    cursor.pos++;
    return;
  }
  if (first !== undefined && first >= 0x40 && first < 0x80) {
    throw new WasmFormatError(`unsupported block type 0x${first.toString(16)} at offset ${cursor.pos}`);
  }
  cursor.leb(5);
}

function catchClause(cursor: BodyCursor): void {
  const kind = cursor.byte();
  if (kind === 0 || kind === 1)
    cursor.leb(5); // catch, catch_ref: tag
  else if (kind !== 2 && kind !== 3) throw new WasmFormatError(`unknown try_table catch kind ${kind}`);
  cursor.leb(5); // label
}

function unknown(opcode: Opcode, offset: number): WasmFormatError {
  const text = opcode > 0xff ? `0x${(opcode >>> 16).toString(16)} ${opcode & 0xffff}` : `0x${opcode.toString(16)}`;
  return new WasmFormatError(`instruction ${text} at offset ${offset} is not one the host reads`);
}
