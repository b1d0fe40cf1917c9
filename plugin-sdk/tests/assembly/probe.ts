// Test module for test/unit/sdk: each export exercises one part of the SDK and reports what it saw as JSON.
import { Host } from "@extism/as-pdk";
import {
  fields,
  HttpClient,
  HttpResult,
  IniConfig,
  InstanceMetadata,
  JsonReader,
  JsonValue,
  JsonWriter,
  Log,
  Node,
  nowMs,
  Service,
  sleepMs,
} from "@wasm-ccm/plugin-sdk";

function output(w: JsonWriter): i32 {
  Host.output(w.toBytes());
  return 0;
}

/** Outputs a parsed tree, or {"parseError": "..."} when the parse gave none. */
function outputParsed(v: JsonValue | null): i32 {
  const w = new JsonWriter();
  if (v === null) {
    w.beginObject();
    w.key("parseError");
    w.string(JsonValue.lastError());
    w.endObject();
  } else {
    v.write(w);
  }
  return output(w);
}

/** Input JSON -> tree -> output JSON; {"parseError": "..."} when the input is not JSON. */
export function json_roundtrip(): i32 {
  return outputParsed(JsonValue.parseBytes(Host.input()));
}

/** {"type": "Node"|"Service"|"InstanceMetadata", "value": {...}} -> the value decoded and encoded again. */
export function abi_roundtrip(): i32 {
  const r = new JsonReader(Host.input());
  const w = new JsonWriter();
  let type = "";
  if (r.beginObject()) {
    let k = r.nextKey();
    while (k !== null) {
      if (k == "type") type = r.readString();
      else if (k == "value") {
        if (type == "Node") Node.decode(r).encode(w);
        else if (type == "Service") Service.decode(r).encode(w);
        else if (type == "InstanceMetadata") InstanceMetadata.decode(r).encode(w);
        else r.fail("unknown type " + type);
        if (r.failed) r.prefix(".value");
      } else r.skip();
      k = r.nextKey();
    }
  }
  r.finish();
  const e = r.error;
  if (e !== null) {
    w.reset();
    w.beginObject();
    w.key("decodeError");
    w.string("$" + e);
    w.endObject();
  }
  return output(w);
}

/** Strings the writer must escape or encode: compared with JSON.stringify by the test. */
export function write_strings(): i32 {
  const w = new JsonWriter(4); // tiny on purpose: exercises growing the buffer
  w.beginArray();
  w.string("plain");
  w.string("\u0000\u0001\u001f\b\f\n\r\t");
  w.string('quote " backslash \\ slash /');
  w.string("é ü ß ĳ € 中文");
  w.string("😀 𝄞");
  w.string("lone \uD800 high, lone \uDC00 low, reversed \uDE00\uD83D");
  w.string("");
  w.endArray();
  return output(w);
}

/** Numbers the writer prints: compared by value with what JSON.parse reads. */
export function write_numbers(): i32 {
  const w = new JsonWriter();
  w.beginArray();
  w.f64(0);
  w.f64(-0.0);
  w.f64(0.1);
  w.f64(-2.5);
  w.f64(1e21);
  w.f64(1.5e-7);
  w.f64(9007199254740993.0);
  w.f64(123456789012.0);
  w.i32(-2147483648);
  w.i32(2147483647);
  w.i64(-9007199254740991);
  w.f64(NaN);
  w.bool(true);
  w.null();
  w.endArray();
  return output(w);
}

/** The input as an INI config: {"values": {...}, "problems": [...], "n": getI32("a.n"), "flag": getBool("a.flag")}. */
export function ini_probe(): i32 {
  const cfg = IniConfig.parse(String.UTF8.decode(Host.input().buffer));
  const w = new JsonWriter();
  w.beginObject();
  w.key("values");
  w.beginObject();
  const keys = cfg.keys();
  for (let i = 0; i < keys.length; i++) {
    w.key(keys[i]);
    w.string(cfg.get(keys[i]));
  }
  w.endObject();
  w.key("problems");
  w.strings(cfg.problems);
  w.key("n");
  w.i32(cfg.getI32("a.n", -1));
  w.key("flag");
  w.bool(cfg.getBool("a.flag", false));
  w.endObject();
  return output(w);
}

export function clock_probe(): i32 {
  const w = new JsonWriter();
  w.i64(nowMs());
  return output(w);
}

/** Sleeps 0, -5, 250 and 90,000 ms; outputs the clock before and after. */
export function sleep_probe(): i32 {
  const w = new JsonWriter();
  w.beginArray();
  w.i64(nowMs());
  sleepMs(0);
  sleepMs(-5);
  sleepMs(250);
  sleepMs(90_000);
  w.i64(nowMs());
  w.endArray();
  return output(w);
}

export function log_probe(): i32 {
  Log.debug("debug message");
  Log.info("info ü 😀", fields().set("instance", "i-1").set("quote", 'say "hi"'));
  Log.warn("warn message", null);
  Log.error("error message", fields().set("code", "42"));
  return 0;
}

/**
 * Input {"method", "path", "body"} -> one request through HttpClient("https://api.example/v1") with a default accept
 * header and a 1500 ms timeout; output what the client made of the answer.
 */
export function http_probe(): i32 {
  const input = JsonValue.parseBytes(Host.input())!;
  const api = new HttpClient("https://api.example/v1").withHeader("accept", "application/json").withTimeout(1500);
  const method = input.get("method").asString("GET");
  const path = input.get("path").asString();
  let res: HttpResult;
  if (method == "GET") res = api.get(path);
  else if (method == "POST") res = api.post(path, input.get("body"));
  else if (method == "DELETE") res = api.delete(path);
  else res = api.request(method, path, input.get("body").asString(), fields().set("x-extra", "1"));
  const w = new JsonWriter();
  w.beginObject();
  w.key("ok");
  w.bool(res.ok);
  w.key("status");
  w.i32(res.status);
  w.key("contentType");
  w.string(res.header("Content-Type"));
  w.key("body");
  w.string(res.body);
  w.key("bodyLength");
  w.i32(res.bodyBytes.length);
  const picked = res.jsonFields(["id"]);
  w.key("fields");
  if (picked === null) w.null();
  else picked.write(w);
  const parsed = res.json();
  w.key("json");
  if (parsed === null) w.null();
  else parsed.write(w);
  const e = res.error;
  w.key("errorCode");
  w.string(e === null ? "" : e.code);
  w.key("errorMessage");
  w.string(e === null ? "" : e.message);
  w.key("asPluginError");
  res.toPluginError().encode(w);
  w.endObject();
  return output(w);
}

/**
 * Input {"keys": [...], "text": "<a JSON document>"} -> JsonValue.parseFields of the text's bytes with those keys,
 * written back; {"parseError": "..."} when it is not JSON.
 */
export function json_fields_probe(): i32 {
  const input = JsonValue.parseBytes(Host.input())!;
  const keysValue = input.get("keys");
  const keys: string[] = [];
  for (let i = 0; i < keysValue.length; i++) keys.push(keysValue.at(i).asString());
  return outputParsed(JsonValue.parseFields(Uint8Array.wrap(String.UTF8.encode(input.get("text").asString())), keys));
}

/** Writes [1, <the input bytes as a raw value>, 3] with JsonWriter.rawBytes. */
export function raw_bytes_probe(): i32 {
  const w = new JsonWriter(4);
  w.beginArray();
  w.i32(1);
  w.rawBytes(Host.input());
  w.i32(3);
  w.endArray();
  return output(w);
}

/** Fails an assertion: the abort handler must log the reason and trap. */
export function abort_probe(): i32 {
  const n = Host.input().length;
  assert(n < 0, "input length is not negative: " + n.toString());
  return 0;
}
