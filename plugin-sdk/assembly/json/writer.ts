// A JSON writer that produces UTF-8 bytes directly: the output of a call is bytes, so encoding strings to UTF-8 while
// escaping them avoids building a UTF-16 string first and encoding it a second time.

const HEX: string = "0123456789abcdef";

export class JsonWriter {
  private buf: ArrayBuffer;
  private len: i32 = 0;
  // True when the next value or key needs a "," before it; one flag is enough because a key resets it and every
  // value (scalar or closed container) sets it.
  private comma: bool = false;

  constructor(initialCapacity: i32 = 256) {
    this.buf = new ArrayBuffer(max(initialCapacity, 16));
  }

  /** Bytes written so far. */
  get length(): i32 {
    return this.len;
  }

  /** The document as a fresh byte array. */
  toBytes(): Uint8Array {
    const out = new Uint8Array(this.len);
    memory.copy(out.dataStart, changetype<usize>(this.buf), <usize>this.len);
    return out;
  }

  /** The document's bytes without copying; valid until the next write. */
  view(): Uint8Array {
    return Uint8Array.wrap(this.buf, 0, this.len);
  }

  /** The document as a string (decoded from the UTF-8 bytes). */
  toString(): string {
    return String.UTF8.decodeUnsafe(changetype<usize>(this.buf), <usize>this.len);
  }

  /** Empties the writer, keeping its buffer. */
  reset(): void {
    this.len = 0;
    this.comma = false;
  }

  private reserve(n: i32): usize {
    const need = this.len + n;
    const cap = this.buf.byteLength;
    if (need > cap) {
      let next = cap << 1;
      while (next < need) next <<= 1;
      const grown = new ArrayBuffer(next);
      memory.copy(changetype<usize>(grown), changetype<usize>(this.buf), <usize>this.len);
      this.buf = grown;
    }
    return changetype<usize>(this.buf) + <usize>this.len;
  }

  @inline private byte(b: u32): void {
    const p = this.reserve(1);
    store<u8>(p, <u8>b);
    this.len++;
  }

  private separate(): void {
    if (this.comma) this.byte(0x2c);
    this.comma = true;
  }

  /** Writes ASCII text as it is (numbers, literals). */
  private ascii(s: string): void {
    const n = s.length;
    let p = this.reserve(n);
    const src = changetype<usize>(s);
    for (let i = 0; i < n; i++) store<u8>(p + <usize>i, <u8>load<u16>(src + (<usize>i << 1)));
    this.len += n;
  }

  beginObject(): void {
    this.separate();
    this.byte(0x7b);
    this.comma = false;
  }

  endObject(): void {
    this.byte(0x7d);
    this.comma = true;
  }

  beginArray(): void {
    this.separate();
    this.byte(0x5b);
    this.comma = false;
  }

  endArray(): void {
    this.byte(0x5d);
    this.comma = true;
  }

  /** Writes an object key; the next call writes its value. */
  key(name: string): void {
    this.string(name);
    this.byte(0x3a);
    this.comma = false;
  }

  null(): void {
    this.separate();
    this.ascii("null");
  }

  bool(value: bool): void {
    this.separate();
    this.ascii(value ? "true" : "false");
  }

  i32(value: i32): void {
    this.separate();
    this.ascii(value.toString());
  }

  i64(value: i64): void {
    this.separate();
    this.ascii(value.toString());
  }

  /** Finite numbers only: JSON has no NaN or Infinity, so those are written as null (which no ABI number accepts). */
  f64(value: f64): void {
    this.separate();
    if (!isFinite(value)) {
      this.ascii("null");
    } else if (value == Math.trunc(value) && Math.abs(value) < 9007199254740992.0) {
      // Integral values print without AssemblyScript's trailing ".0".
      this.ascii((<i64>value).toString());
    } else {
      // Past 2^53 AssemblyScript prints integral values with a ".0" that JSON.stringify would not write.
      const text = value.toString();
      this.ascii(text.endsWith(".0") ? text.substring(0, text.length - 2) : text);
    }
  }

  /** A JSON string: UTF-16 in, UTF-8 out; lone surrogates are escaped as \uXXXX like JSON.stringify does. */
  string(s: string): void {
    this.separate();
    const n = s.length;
    const base = this.reserve(n * 6 + 2); // the longest form of one UTF-16 unit is "\uXXXX"
    let p = base;
    store<u8>(p++, 0x22);
    const src = changetype<usize>(s);
    for (let i = 0; i < n; i++) {
      const c = <u32>load<u16>(src + (<usize>i << 1));
      if (c < 0x80) {
        if (c >= 0x20 && c != 0x22 && c != 0x5c) {
          store<u8>(p++, <u8>c);
          continue;
        }
        store<u8>(p++, 0x5c);
        if (c == 0x22 || c == 0x5c) store<u8>(p++, <u8>c);
        else if (c == 0x0a) store<u8>(p++, 0x6e);
        else if (c == 0x0d) store<u8>(p++, 0x72);
        else if (c == 0x09) store<u8>(p++, 0x74);
        else if (c == 0x08) store<u8>(p++, 0x62);
        else if (c == 0x0c) store<u8>(p++, 0x66);
        else p = escapeUnit(p, c);
      } else if (c < 0x800) {
        store<u8>(p++, <u8>(0xc0 | (c >> 6)));
        store<u8>(p++, <u8>(0x80 | (c & 0x3f)));
      } else if (c >= 0xd800 && c < 0xe000) {
        const lo = i + 1 < n ? <u32>load<u16>(src + (<usize>(i + 1) << 1)) : 0;
        if (c < 0xdc00 && lo >= 0xdc00 && lo < 0xe000) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
          store<u8>(p++, <u8>(0xf0 | (cp >> 18)));
          store<u8>(p++, <u8>(0x80 | ((cp >> 12) & 0x3f)));
          store<u8>(p++, <u8>(0x80 | ((cp >> 6) & 0x3f)));
          store<u8>(p++, <u8>(0x80 | (cp & 0x3f)));
          i++;
        } else {
          store<u8>(p++, 0x5c);
          p = escapeUnit(p, c);
        }
      } else {
        store<u8>(p++, <u8>(0xe0 | (c >> 12)));
        store<u8>(p++, <u8>(0x80 | ((c >> 6) & 0x3f)));
        store<u8>(p++, <u8>(0x80 | (c & 0x3f)));
      }
    }
    store<u8>(p++, 0x22);
    this.len += <i32>(p - base);
  }

  /** A map of strings as a JSON object. */
  map(m: Map<string, string>): void {
    this.beginObject();
    const keys = m.keys();
    for (let i = 0; i < keys.length; i++) {
      this.key(keys[i]);
      this.string(m.get(keys[i]));
    }
    this.endObject();
  }

  /** A list of strings as a JSON array. */
  strings(list: string[]): void {
    this.beginArray();
    for (let i = 0; i < list.length; i++) this.string(list[i]);
    this.endArray();
  }

  /**
   * Inserts an already serialized JSON value (for example a JsonValue's toString()). The text is not checked: invalid
   * JSON here makes the whole answer invalid.
   */
  raw(json: string): void {
    const bytes = String.UTF8.encode(json);
    this.rawBytes(Uint8Array.wrap(bytes));
  }

  /** Inserts an already serialized JSON value given as UTF-8 bytes (unchecked, as raw()). */
  rawBytes(json: Uint8Array): void {
    this.separate();
    const n = json.length;
    const p = this.reserve(n);
    memory.copy(p, json.dataStart, <usize>n);
    this.len += n;
  }
}

// Writes "uXXXX" (the backslash is already written) and returns the next write position.
function escapeUnit(p: usize, c: u32): usize {
  const hex = changetype<usize>(HEX);
  store<u8>(p, 0x75);
  store<u8>(p + 1, <u8>load<u16>(hex + (<usize>((c >> 12) & 0xf) << 1)));
  store<u8>(p + 2, <u8>load<u16>(hex + (<usize>((c >> 8) & 0xf) << 1)));
  store<u8>(p + 3, <u8>load<u16>(hex + (<usize>((c >> 4) & 0xf) << 1)));
  store<u8>(p + 4, <u8>load<u16>(hex + (<usize>(c & 0xf) << 1)));
  return p + 5;
}
