// Text assembled from many pieces (character data with its references and normalized line ends, a CDATA section's
// lines) is built here and copied into a string once: `out += piece` copies everything so far for every piece, which
// made a 5 MB run of `&amp;` take minutes.

const INITIAL_BYTES: i32 = 256;
// A buffer grown for a large answer is dropped on the next reset, so that one big text does not pin its memory.
const RETAINED_BYTES: i32 = 1 << 16;

/** UTF-16 code units in a buffer grown by doubling. */
export class TextBuffer {
  private buf: ArrayBuffer = new ArrayBuffer(INITIAL_BYTES);
  private bytes: i32 = 0;

  reset(): void {
    if (this.buf.byteLength > RETAINED_BYTES) this.buf = new ArrayBuffer(INITIAL_BYTES);
    this.bytes = 0;
  }

  /** The code units [start, end) of s. */
  appendRange(s: string, start: i32, end: i32): void {
    const n = (end - start) << 1;
    if (n <= 0) return;
    this.reserve(n);
    memory.copy(changetype<usize>(this.buf) + <usize>this.bytes, changetype<usize>(s) + (<usize>start << 1), <usize>n);
    this.bytes += n;
  }

  appendUnit(unit: i32): void {
    this.reserve(2);
    store<u16>(changetype<usize>(this.buf) + <usize>this.bytes, <u16>unit);
    this.bytes += 2;
  }

  /** A code point (as a surrogate pair past the BMP). */
  appendCodePoint(cp: i32): void {
    if (cp < 0x10000) {
      this.appendUnit(cp);
      return;
    }
    cp -= 0x10000;
    this.appendUnit(0xd800 + (cp >> 10));
    this.appendUnit(0xdc00 + (cp & 0x3ff));
  }

  toString(): string {
    return String.UTF16.decodeUnsafe(changetype<usize>(this.buf), <usize>this.bytes);
  }

  private reserve(n: i32): void {
    const needed = this.bytes + n;
    if (needed <= this.buf.byteLength) return;
    let capacity = this.buf.byteLength << 1;
    while (capacity < needed) capacity <<= 1;
    const grown = new ArrayBuffer(capacity);
    memory.copy(changetype<usize>(grown), changetype<usize>(this.buf), <usize>this.bytes);
    this.buf = grown;
  }
}
