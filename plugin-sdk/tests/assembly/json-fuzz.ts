// Test module for the JSON fuzzer (test/support/json-fuzz, bench/fuzz-json.ts): many documents per call, so that a
// run of 100,000 cases costs a few hundred calls rather than 100,000.
//
// Input: the cases one after another, each [u32 LE length][bytes]. Output, per case in the same order:
// [u8 flags][u32 LE length][bytes], where flags bit 0 is set when JsonValue.parseBytes accepted the document (the
// bytes are then what JsonValue.write made of the tree, else JsonValue.lastError()), and bit 1 when JsonReader.skip()
// followed by finish() accepted it (the path parseFields and the generated decoders take for unknown fields).
import { Host } from "@extism/as-pdk";
import { JsonReader, JsonValue, JsonWriter } from "@wasm-ccm/plugin-sdk";

class Bytes {
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

function skipAccepts(doc: Uint8Array): bool {
  const r = new JsonReader(doc);
  r.skip();
  r.finish();
  return !r.failed;
}

export function fuzz_batch(): i32 {
  const input = Host.input();
  const out = new Bytes();
  const w = new JsonWriter();
  let at = 0;
  while (at + 4 <= input.length) {
    const n = <i32>load<u32>(input.dataStart + <usize>at);
    // A view, not a copy: a read past the document's end would see the next case's bytes and show as a divergence.
    const doc = Uint8Array.wrap(input.buffer, input.byteOffset + at + 4, n);
    at += 4 + n;
    // The runner's own test (json-fuzz.test.ts) checks that a trap is caught and pinned on its case.
    if (n == 5 && load<u8>(doc.dataStart) == 0 && String.UTF8.decodeUnsafe(doc.dataStart + 1, 4) == "trap") unreachable();
    const skipped: u8 = skipAccepts(doc) ? 2 : 0;
    const tree = JsonValue.parseBytes(doc);
    if (tree === null) {
      const message = String.UTF8.encode(JsonValue.lastError());
      out.record(skipped, changetype<usize>(message), message.byteLength);
    } else {
      w.reset();
      tree.write(w);
      out.record(skipped | 1, w.view().dataStart, w.length);
    }
  }
  Host.output(Uint8Array.wrap(out.buf, 0, out.len));
  return 0;
}
