// A cursor over one section's content that refuses to read past it: every read either stays inside the section or
// throws a WasmFormatError naming the offset. The module reader and the table reader share it.
import { readUnsigned, WasmFormatError } from './leb128.ts';

export class SectionReader {
  readonly bytes: Uint8Array;
  offset: number;
  readonly end: number;

  constructor(bytes: Uint8Array, offset: number, end: number) {
    this.bytes = bytes;
    this.offset = offset;
    this.end = end;
  }

  atEnd(): boolean {
    return this.offset === this.end;
  }

  byte(): number {
    if (this.offset >= this.end) throw new WasmFormatError(`unexpected end of section at offset ${this.offset}`);
    return this.bytes[this.offset++] as number;
  }

  unsigned(maxBits = 32): number {
    const decoded = readUnsigned(this.bytes, this.offset, maxBits);
    if (decoded.next > this.end) throw new WasmFormatError(`LEB128 runs past its section at offset ${this.offset}`);
    this.offset = decoded.next;
    return decoded.value;
  }

  /**
   * Steps over a signed LEB128 of at most `maxBits` bits. Its value is never needed here (the constants of constant
   * expressions), only where it ends; V8 judges the value itself when it compiles the module.
   */
  skipSigned(maxBits: number): void {
    const start = this.offset;
    const maxBytes = Math.ceil(maxBits / 7);
    for (let i = 0; i < maxBytes; i++) {
      if ((this.byte() & 0x80) === 0) return;
    }
    throw new WasmFormatError(`signed LEB128 at offset ${start} is longer than ${maxBytes} bytes`);
  }

  skip(length: number): void {
    if (this.offset + length > this.end) {
      throw new WasmFormatError(`${length} bytes at offset ${this.offset} run past their section`);
    }
    this.offset += length;
  }

  name(): string {
    const length = this.unsigned();
    const start = this.offset;
    this.skip(length);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes.subarray(start, this.offset));
    } catch {
      throw new WasmFormatError(`name at offset ${start} is not UTF-8`);
    }
  }

  vector<T>(item: () => T): T[] {
    const count = this.unsigned();
    const items: T[] = [];
    // Every item takes at least a byte: a count above what is left is a lie, refused before looping on it.
    if (count > this.end - this.offset) {
      throw new WasmFormatError(`vector of ${count} items at offset ${this.offset} is longer than its section`);
    }
    for (let i = 0; i < count; i++) items.push(item());
    return items;
  }
}
