// Test module for the JSON fuzzer (lab/fuzz/json, lab/fuzz/json/main.ts): many documents per call, so that a
// run of 100,000 cases costs a few hundred calls rather than 100,000.
//
// Input: the cases one after another, each [u32 LE length][bytes]. Output, per case in the same order:
// [u8 flags][u32 LE length][bytes], where flags bit 0 is set when JsonValue.parseBytes accepted the document (the
// bytes are then what JsonValue.write made of the tree, else JsonValue.lastError()), and bit 1 when JsonReader.skip()
// followed by finish() accepted it (the path parseFields and the generated decoders take for unknown fields), and bit 2
// when JsonReader.readMapBytes() and then mapOfJson() gave what readMap() gives (the generated classes' lazily decoded
// map fields against the eager read): the same entries in the same order, or the same problem.
import { Host } from "@extism/as-pdk";
import { Bytes, Cases } from "./fuzz-output";
import { JsonReader, JsonValue, JsonWriter, mapOfJson } from "@wasm-ccm/plugin-sdk";

function skipAccepts(doc: Uint8Array): bool {
  const r = new JsonReader(doc);
  r.skip();
  r.finish();
  return !r.failed;
}

function lazyMapAgrees(doc: Uint8Array): bool {
  const eager = new JsonReader(doc);
  const map = eager.readMap();
  eager.finish();
  const lazy = new JsonReader(doc);
  const json = lazy.readMapBytes();
  lazy.finish();
  if (eager.error != lazy.error) return false;
  if (eager.failed) return true;
  const read = mapOfJson(json);
  const keys = map.keys();
  const readKeys = read.keys();
  if (keys.length != readKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = unchecked(keys[i]);
    if (key != unchecked(readKeys[i]) || map.get(key) != read.get(key)) return false;
  }
  return true;
}

export function fuzz_batch(): i32 {
  const input = Host.input();
  const out = new Bytes();
  const w = new JsonWriter();
  const cases = new Cases(input);
  for (let doc = cases.next(); doc !== null; doc = cases.next()) {
    const skipped: u8 = (skipAccepts(doc) ? 2 : 0) | (lazyMapAgrees(doc) ? 4 : 0);
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
