// Test module for test/unit/sdk/helpers.test.ts: the URL and annotation helpers, driven by JSON input.
import { Host } from "@extism/as-pdk";
import { annotationFloat, annotationInt, encodeComponent, JsonValue, JsonWriter, Query, urlPath } from "@wasm-ccm/plugin-sdk";

function output(w: JsonWriter): i32 {
  Host.output(w.toBytes());
  return 0;
}

/** {"values": [...]} -> {"components": [...], "path": "/a/b", "query": "?v=a&v=b"} */
export function encode_probe(): i32 {
  const values = JsonValue.parseBytes(Host.input())!.get("values");
  const segments = new Array<string>();
  const query = new Query();
  const w = new JsonWriter();
  w.beginObject();
  w.key("components");
  w.beginArray();
  for (let i = 0; i < values.length; i++) {
    const v = values.at(i).asString();
    segments.push(v);
    query.add("v", v);
    w.string(encodeComponent(v));
  }
  w.endArray();
  w.key("path");
  w.string(urlPath(segments));
  w.key("query");
  w.string(query.toString());
  w.endObject();
  return output(w);
}

/** {"annotations": {...}, "name": "...", "kind": "int"|"float", "min"?, "max"?} -> {value, present, error} */
export function annotation_probe(): i32 {
  const doc = JsonValue.parseBytes(Host.input())!;
  const annotations = doc.get("annotations").toStringMap();
  const name = doc.get("name").asString();
  const w = new JsonWriter();
  w.beginObject();
  let error = "";
  let present = false;
  w.key("value");
  if (doc.get("kind").asString() == "int") {
    const hasRange = !doc.get("min").isNull;
    const r = hasRange
      ? annotationInt(annotations, name, -1, <i64>doc.get("min").asNumber(), <i64>doc.get("max").asNumber())
      : annotationInt(annotations, name, -1);
    w.string(r.value.toString());
    present = r.present;
    if (r.error !== null) error = r.error!.code + ": " + r.error!.message;
  } else {
    const hasRange = !doc.get("min").isNull;
    const r = hasRange
      ? annotationFloat(annotations, name, -1, doc.get("min").asNumber(), doc.get("max").asNumber())
      : annotationFloat(annotations, name, -1);
    w.f64(r.value);
    present = r.present;
    if (r.error !== null) error = r.error!.code + ": " + r.error!.message;
  }
  w.key("present");
  w.bool(present);
  w.key("error");
  w.string(error);
  w.endObject();
  return output(w);
}
