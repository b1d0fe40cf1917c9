// The framing of the SDK's fuzz test modules (json-fuzz.ts, xml.ts). Input: the cases one after another, each
// [u32 LE length][bytes]. Output: one record per case, [u8 flags][u32 LE length][bytes], in a buffer grown by
// doubling so that a batch of thousands of cases costs a few allocations.

/** The cases of a batch, in order. */
export class Cases {
  private at: i32 = 0;

  constructor(private input: Uint8Array) {}

  /** The next case, or null after the last. */
  next(): Uint8Array | null {
    const input = this.input;
    if (this.at + 4 > input.length) return null;
    const n = <i32>load<u32>(input.dataStart + <usize>this.at);
    // A view, not a copy: a read past the document's end would see the next case's bytes and show as a divergence.
    const doc = Uint8Array.wrap(input.buffer, input.byteOffset + this.at + 4, n);
    this.at += 4 + n;
    // The runner's own test (json-fuzz.test.ts) checks that a trap is caught and pinned on its case.
    if (n == 5 && load<u8>(doc.dataStart) == 0 && String.UTF8.decodeUnsafe(doc.dataStart + 1, 4) == "trap") unreachable();
    return doc;
  }
}
export class Bytes {
  buf: ArrayBuffer = new ArrayBuffer(1 << 16);
  len: i32 = 0;

  reserve(n: i32): usize {
    if (this.len + n > this.buf.byteLength) {
      let cap = this.buf.byteLength << 1;
      while (cap < this.len + n) cap <<= 1;
      const grown = new ArrayBuffer(cap);
      memory.copy(changetype<usize>(grown), changetype<usize>(this.buf), <usize>this.len);
      this.buf = grown;
    }
    return changetype<usize>(this.buf) + <usize>this.len;
  }

  record(flags: u8, data: usize, n: i32): void {
    const p = this.reserve(n + 5);
    store<u8>(p, flags);
    store<u32>(p + 1, <u32>n);
    memory.copy(p + 5, data, <usize>n);
    this.len += n + 5;
  }
}
