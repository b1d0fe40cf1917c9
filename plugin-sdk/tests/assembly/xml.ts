// Test module for the XML reader and the Query-protocol helpers (test/unit/sdk/xml.test.ts, the XML fuzzer in
// lab/fuzz/xml and lab/fuzz/xml/main.ts).
//
// fuzz_batch input: the cases one after another, each [u32 LE length][UTF-8 bytes]. Output per case:
// [u8 flags][u32 LE length][bytes]; flag bit 0: XmlReader read the document to its end (the bytes are then its events
// as JSON, [["s", qname, [[attr, value]...]], ["t", text], ["e", qname]...] with adjacent text runs joined, else the
// error); bit 1: XmlElement.parseBytes accepted it too.
import { Host } from "@extism/as-pdk";
import { Bytes, Cases } from "./fuzz-output";
import { JsonValue, JsonWriter, QueryRequest, XmlElement, XmlEvent, XmlReader } from "@wasm-ccm/plugin-sdk";
import { readInput } from "@wasm-ccm/plugin-sdk/assembly/host/io";

/** The reader's events as JSON into w; the error when it failed. */
function events(doc: Uint8Array, w: JsonWriter): string | null {
  const r = XmlReader.fromBytes(doc);
  w.beginArray();
  const runs: string[] = []; // adjacent text runs, joined once
  while (true) {
    const ev = r.next();
    if (ev == XmlEvent.Text) {
      runs.push(r.text);
      continue;
    }
    if (runs.length > 0) {
      w.beginArray();
      w.string("t");
      w.string(runs.join(""));
      w.endArray();
      runs.length = 0;
    }
    if (ev == XmlEvent.Error) return r.error;
    if (ev == XmlEvent.End) break;
    w.beginArray();
    w.string(ev == XmlEvent.StartElement ? "s" : "e");
    w.string(r.qname);
    if (ev == XmlEvent.StartElement) {
      w.beginArray();
      for (let i = 0; i < r.attributes.length; i++) {
        w.beginArray();
        w.string(r.attributes[i].qname);
        w.string(r.attributes[i].value);
        w.endArray();
      }
      w.endArray();
    }
    w.endArray();
  }
  w.endArray();
  return null;
}

export function fuzz_batch(): i32 {
  const input = Host.input();
  const out = new Bytes();
  const w = new JsonWriter();
  const cases = new Cases(input);
  for (let doc = cases.next(); doc !== null; doc = cases.next()) {
    w.reset();
    const error = events(doc, w);
    const tree: u8 = XmlElement.parseBytes(doc) !== null ? 2 : 0;
    if (error !== null) {
      const message = String.UTF8.encode(error);
      out.record(tree, changetype<usize>(message), message.byteLength);
    } else {
      out.record(tree | 1, w.view().dataStart, w.length);
    }
  }
  Host.output(Uint8Array.wrap(out.buf, 0, out.len));
  return 0;
}

/**
 * The document (raw bytes) through every reading a provider makes, for the time fuzzer (lab/fuzz/xml/
 * timing.ts): XmlReader to its end, readElementText() of the root, and XmlElement.parseBytes. Output
 * {"events", "accepted", "elementText" (its length), "tree"}, so a caller can see the work was done.
 */
export function time_probe(): i32 {
  const doc = readInput(); // one host call; Host.input() makes one per 8 bytes, which would be most of the time
  const r = XmlReader.fromBytes(doc);
  let events = 0;
  let ev = r.next();
  while (ev != XmlEvent.End && ev != XmlEvent.Error) {
    events++;
    ev = r.next();
  }
  const whole = XmlReader.fromBytes(doc);
  const elementText = whole.next() == XmlEvent.StartElement ? whole.readElementText().length : -1;
  const tree = XmlElement.parseBytes(doc) !== null;
  const w = new JsonWriter();
  w.beginObject();
  w.key("events");
  w.i64(events);
  w.key("accepted");
  w.bool(ev == XmlEvent.End);
  w.key("elementText");
  w.i64(elementText);
  w.key("tree");
  w.bool(tree);
  w.endObject();
  Host.output(w.toBytes());
  return 0;
}

/** The document (raw bytes) through XmlElement.parseBytes only, as a provider reads an answer: {"tree"}. */
export function time_tree(): i32 {
  const tree = XmlElement.parseBytes(readInput()) !== null;
  const w = new JsonWriter();
  w.beginObject();
  w.key("tree");
  w.bool(tree);
  w.endObject();
  Host.output(w.toBytes());
  return 0;
}

/** {"doc": "...", "path": "a/b", "child": "c"} -> {"error", "root", "texts": [text of each path match], "childTexts"} */
export function tree_probe(): i32 {
  const input = JsonValue.parseBytes(Host.input())!;
  const root = XmlElement.parse(input.get("doc").asString());
  const w = new JsonWriter();
  w.beginObject();
  w.key("error");
  w.string(root === null ? XmlElement.lastError() : "");
  if (root !== null) {
    w.key("root");
    w.string(root.name);
    const found = root.path(input.get("path").asString());
    w.key("texts");
    w.beginArray();
    for (let i = 0; i < found.length; i++) w.string(found[i].text);
    w.endArray();
    w.key("childTexts");
    w.beginArray();
    for (let i = 0; i < found.length; i++) w.string(found[i].childText(input.get("child").asString()));
    w.endArray();
    w.key("pathText");
    w.string(root.pathText(input.get("path").asString()));
  }
  w.endObject();
  Host.output(w.toBytes());
  return 0;
}

/** {"doc": "..."} after the first StartElement: readElementText() of the root, then the next event. */
export function element_text_probe(): i32 {
  const input = JsonValue.parseBytes(Host.input())!;
  const r = new XmlReader(input.get("doc").asString());
  r.next();
  const text = r.readElementText();
  const after = r.next();
  const w = new JsonWriter();
  w.beginObject();
  w.key("text");
  w.string(text);
  w.key("after");
  w.i64(<i64>after);
  w.key("error");
  w.string(r.error === null ? "" : r.error!);
  w.endObject();
  Host.output(w.toBytes());
  return 0;
}

/** {"action", "version", "params": [[k, v]...], "lists": [[prefix, [v...]]], "members": [...], "filters": [...]} */
export function query_probe(): i32 {
  const input = JsonValue.parseBytes(Host.input())!;
  const q = new QueryRequest(input.get("action").asString(), input.get("version").asString());
  const params = input.get("params");
  for (let i = 0; i < params.length; i++) q.add(params.at(i).at(0).asString(), params.at(i).at(1).asString());
  const lists = input.get("lists");
  for (let i = 0; i < lists.length; i++) q.addList(lists.at(i).at(0).asString(), strings(lists.at(i).at(1)));
  const members = input.get("members");
  for (let i = 0; i < members.length; i++) q.addMembers(members.at(i).at(0).asString(), strings(members.at(i).at(1)));
  const filters = input.get("filters");
  for (let i = 0; i < filters.length; i++) q.addFilter(filters.at(i).at(0).asString(), strings(filters.at(i).at(1)));
  Host.output(Uint8Array.wrap(String.UTF8.encode(q.toString())));
  return 0;
}

function strings(v: JsonValue): string[] {
  const out: string[] = [];
  for (let i = 0; i < v.length; i++) out.push(v.at(i).asString());
  return out;
}
