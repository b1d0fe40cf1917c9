// A JSON document tree for the parts of a plugin that handle free-form JSON: cloud API bodies and JSON cloud configs.
// ABI messages do not use it (their generated codecs stream); it trades speed for convenience.
import { JsonReader } from "./reader";
import { JsonWriter } from "./writer";

export enum JsonKind {
  Null,
  Bool,
  Number,
  String,
  Array,
  Object,
}

export class JsonValue {
  kind: JsonKind = JsonKind.Null;
  private b: bool = false;
  private n: f64 = 0;
  private s: string = "";
  private items: JsonValue[] = [];
  private fieldNames: string[] = [];
  private fields: Map<string, JsonValue> = new Map();

  static ofNull(): JsonValue {
    return new JsonValue();
  }

  static ofBool(b: bool): JsonValue {
    const v = new JsonValue();
    v.kind = JsonKind.Bool;
    v.b = b;
    return v;
  }

  static ofNumber(n: f64): JsonValue {
    const v = new JsonValue();
    v.kind = JsonKind.Number;
    v.n = n;
    return v;
  }

  static ofString(s: string): JsonValue {
    const v = new JsonValue();
    v.kind = JsonKind.String;
    v.s = s;
    return v;
  }

  static newArray(): JsonValue {
    const v = new JsonValue();
    v.kind = JsonKind.Array;
    return v;
  }

  static newObject(): JsonValue {
    const v = new JsonValue();
    v.kind = JsonKind.Object;
    return v;
  }

  /** Parses a whole document; null when it is not valid JSON (JsonValue.lastError says why). */
  static parse(text: string): JsonValue | null {
    return JsonValue.parseBytes(Uint8Array.wrap(String.UTF8.encode(text)));
  }

  static parseBytes(bytes: Uint8Array): JsonValue | null {
    const r = new JsonReader(bytes);
    return JsonValue.finished(r, JsonValue.read(r));
  }

  // The parse's outcome: `v` when the reader read one whole valid document, else null with lastError set.
  private static finished(r: JsonReader, v: JsonValue): JsonValue | null {
    r.finish();
    const e = r.error;
    if (e !== null) {
      lastParseError = "$" + e;
      return null;
    }
    lastParseError = "";
    return v;
  }

  /**
   * Parses a document keeping only the named fields of its top-level object; the other fields are checked and
   * skipped without building them (a 1,000-element list skipped costs no allocation). A document that is not an
   * object is parsed whole. Null when it is not valid JSON (JsonValue.lastError says why).
   */
  static parseFields(bytes: Uint8Array, keys: string[]): JsonValue | null {
    const r = new JsonReader(bytes);
    let v: JsonValue;
    if (r.peekKind() == "object") {
      v = JsonValue.newObject();
      r.beginObject();
      let k = r.nextKey();
      while (k !== null) {
        if (keys.includes(k)) {
          const item = JsonValue.read(r);
          if (r.failed) r.prefix("." + k);
          else v.set(k, item);
        } else {
          r.skip();
        }
        k = r.nextKey();
      }
    } else {
      v = JsonValue.read(r);
    }
    return JsonValue.finished(r, v);
  }

  /** Why the last parse returned null, e.g. `$.items[2]: invalid JSON at byte 40: expected , or ]`. */
  static lastError(): string {
    return lastParseError;
  }

  /** Reads the next value of a reader as a tree (use inside hand-written decoders for free-form parts). */
  static read(r: JsonReader): JsonValue {
    const kind = r.peekKind();
    if (kind == "object") {
      const v = JsonValue.newObject();
      r.beginObject();
      let k = r.nextKey();
      while (k !== null) {
        const item = JsonValue.read(r);
        if (r.failed) {
          r.prefix("." + k);
          return v;
        }
        v.set(k, item);
        k = r.nextKey();
      }
      return v;
    }
    if (kind == "list") {
      const v = JsonValue.newArray();
      r.beginArray();
      let i = 0;
      while (r.nextItem()) {
        const item = JsonValue.read(r);
        if (r.failed) {
          r.prefix("[" + i.toString() + "]");
          return v;
        }
        v.push(item);
        i++;
      }
      return v;
    }
    if (kind == "string") return JsonValue.ofString(r.readString());
    if (kind == "number") return JsonValue.ofNumber(r.readF64());
    if (kind == "bool") return JsonValue.ofBool(r.readBool());
    if (kind == "null") {
      r.readNull();
      return JsonValue.ofNull();
    }
    r.skip(); // records the syntax problem
    return JsonValue.ofNull();
  }

  get isNull(): bool {
    return this.kind == JsonKind.Null;
  }

  /** The string, or `fallback` when this is not a string. */
  asString(fallback: string = ""): string {
    return this.kind == JsonKind.String ? this.s : fallback;
  }

  asNumber(fallback: f64 = 0): f64 {
    return this.kind == JsonKind.Number ? this.n : fallback;
  }

  asI32(fallback: i32 = 0): i32 {
    if (this.kind != JsonKind.Number || this.n != Math.trunc(this.n)) return fallback;
    if (this.n < -2147483648.0 || this.n > 2147483647.0) return fallback;
    return <i32>this.n;
  }

  asBool(fallback: bool = false): bool {
    return this.kind == JsonKind.Bool ? this.b : fallback;
  }

  /** Number of elements (list) or fields (object); 0 otherwise. */
  get length(): i32 {
    if (this.kind == JsonKind.Array) return this.items.length;
    if (this.kind == JsonKind.Object) return this.fieldNames.length;
    return 0;
  }

  /** Element i of a list; a null value when out of range or not a list. */
  at(i: i32): JsonValue {
    if (this.kind != JsonKind.Array || i < 0 || i >= this.items.length) return JsonValue.ofNull();
    return this.items[i];
  }

  has(key: string): bool {
    return this.kind == JsonKind.Object && this.fields.has(key);
  }

  /** Field `key` of an object; a null value when absent or not an object, so lookups chain: v.get("a").get("b"). */
  get(key: string): JsonValue {
    if (this.kind != JsonKind.Object || !this.fields.has(key)) return JsonValue.ofNull();
    return this.fields.get(key);
  }

  /** Field names of an object in document order. */
  keys(): string[] {
    return this.kind == JsonKind.Object ? this.fieldNames.slice(0) : [];
  }

  /** Sets a field (turning this value into an object); returns this for chaining. */
  set(key: string, value: JsonValue): JsonValue {
    if (this.kind != JsonKind.Object) {
      this.kind = JsonKind.Object;
      this.fieldNames = [];
      this.fields = new Map();
    }
    if (!this.fields.has(key)) this.fieldNames.push(key);
    this.fields.set(key, value);
    return this;
  }

  /** Appends an element (turning this value into a list); returns this for chaining. */
  push(value: JsonValue): JsonValue {
    if (this.kind != JsonKind.Array) {
      this.kind = JsonKind.Array;
      this.items = [];
    }
    this.items.push(value);
    return this;
  }

  /** An object of strings as a Map (non-string values are left out). */
  toStringMap(): Map<string, string> {
    const m = new Map<string, string>();
    for (let i = 0; i < this.fieldNames.length; i++) {
      const v = this.fields.get(this.fieldNames[i]);
      if (v.kind == JsonKind.String) m.set(this.fieldNames[i], v.s);
    }
    return m;
  }

  write(w: JsonWriter): void {
    switch (this.kind) {
      case JsonKind.Null:
        w.null();
        break;
      case JsonKind.Bool:
        w.bool(this.b);
        break;
      case JsonKind.Number:
        w.f64(this.n);
        break;
      case JsonKind.String:
        w.string(this.s);
        break;
      case JsonKind.Array:
        w.beginArray();
        for (let i = 0; i < this.items.length; i++) this.items[i].write(w);
        w.endArray();
        break;
      default:
        w.beginObject();
        for (let i = 0; i < this.fieldNames.length; i++) {
          w.key(this.fieldNames[i]);
          this.fields.get(this.fieldNames[i]).write(w);
        }
        w.endObject();
    }
  }

  /** The value serialized as compact JSON. */
  toString(): string {
    const w = new JsonWriter();
    this.write(w);
    return w.toString();
  }
}

let lastParseError: string = "";
