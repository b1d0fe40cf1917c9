// A pull reader over UTF-8 JSON bytes. Generated decoders and vendors walk documents with it without building a tree.
// AssemblyScript has no exceptions, so the first problem is recorded in `error` and every later read returns a default
// value at once; callers add their part of the path on the way out (`prefix`), giving messages such as
// `.node.addresses[1].type: expected string, got number`.

import { asciiString, decodeUtf8, FNV_OFFSET, FNV_PRIME, present, scanEscapedString, scanNumber } from "./scan";

const MAX_DEPTH: i32 = 256; // deeper documents are refused rather than risking the Wasm stack

export class JsonReader {
  private data: Uint8Array; // keeps the bytes alive while pos/end point into them
  private pos: usize;
  private end: usize;
  private start: usize;
  // Per open container: whether the next element is its first (no comma expected before it). A fixed array and a
  // depth rather than a growable list: every object of a document pushes and pops here.
  private first: StaticArray<bool> = new StaticArray<bool>(MAX_DEPTH);
  private depth: i32 = 0;
  /** The first problem met, as a path suffix such as `.a[2]: expected string, got number`; null while all is well. */
  error: string | null = null;

  /** Reads `data`, which must not change afterwards: the map fields of what it decodes read it when first used. */
  constructor(data: Uint8Array) {
    this.data = data;
    this.start = data.dataStart;
    this.pos = this.start;
    this.end = this.start + <usize>data.length;
  }

  static fromString(text: string): JsonReader {
    return new JsonReader(Uint8Array.wrap(String.UTF8.encode(text)));
  }

  // Every read checks this first: see present().
  @inline get failed(): bool {
    return present(this.error);
  }

  /** Records a problem (only the first one counts) and stops the reader. */
  fail(message: string): void {
    if (!this.failed) this.error = ": " + message;
    this.pos = this.end;
  }

  /** Adds a path segment in front of the recorded problem, if there is one. */
  prefix(segment: string): void {
    const e = this.error;
    if (e !== null) this.error = segment + e;
  }

  /** Byte offset of the next unread byte (for messages). */
  get offset(): i32 {
    return <i32>(this.pos - this.start);
  }

  private ws(): void {
    let p = this.pos;
    const end = this.end;
    while (p < end) {
      const c = load<u8>(p);
      if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) break;
      p++;
    }
    this.pos = p;
  }

  private syntax(expected: string): void {
    if (this.failed) return;
    if (this.pos >= this.end) this.fail("invalid JSON: unexpected end, expected " + expected);
    else this.fail("invalid JSON at byte " + this.offset.toString() + ": expected " + expected);
  }

  /** What the next value is, for "expected X, got Y" messages: object, list, string, number, bool, null or "invalid JSON". */
  peekKind(): string {
    this.ws();
    if (this.pos >= this.end) return "end of input";
    const c = load<u8>(this.pos);
    if (c == 0x7b) return "object";
    if (c == 0x5b) return "list";
    if (c == 0x22) return "string";
    if ((c == 0x74 && this.startsWith("true")) || (c == 0x66 && this.startsWith("false"))) return "bool";
    if (c == 0x6e && this.startsWith("null")) return "null";
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return "number";
    return "invalid JSON";
  }

  private startsWith(word: string): bool {
    const n = <usize>word.length;
    if (this.pos + n > this.end) return false;
    for (let i: usize = 0; i < n; i++) {
      if (<u16>load<u8>(this.pos + i) != load<u16>(changetype<usize>(word) + (i << 1))) return false;
    }
    return true;
  }

  /** True when the next value is null (and consumes it). */
  readNull(): bool {
    this.ws();
    if (this.pos < this.end && load<u8>(this.pos) == 0x6e) return this.literal("null");
    return false;
  }

  private wrongKind(expected: string): void {
    if (this.failed) return;
    const got = this.peekKind();
    if (got == "invalid JSON" || got == "end of input") this.syntax(expected);
    else this.fail("expected " + expected + ", got " + got);
  }

  private literal(word: string): bool {
    if (!this.startsWith(word)) {
      this.syntax(word);
      return false;
    }
    this.pos += <usize>word.length;
    return true;
  }

  /** Enters an object; false (and a recorded problem) when the next value is not one. */
  // beginObject and beginArray are kept as two copies on purpose: folded into one enter(open, kind) the 1,000-node
  // decode of bench:plugin-ensure went from 8.2-8.5 ms to 8.6-13 ms of plugin CPU (six alternating runs each).
  beginObject(): bool {
    if (this.failed) return false;
    this.ws();
    if (this.pos < this.end && load<u8>(this.pos) == 0x7b) {
      if (this.depth >= MAX_DEPTH) {
        this.fail("JSON nested deeper than " + MAX_DEPTH.toString() + " levels");
        return false;
      }
      this.pos++;
      unchecked((this.first[this.depth++] = true));
      return true;
    }
    this.wrongKind("object");
    return false;
  }

  /** The next key of the current object, positioned at its value; null at the end of the object (or on error). */
  nextKey(): string | null {
    if (!this.atKey()) return null;
    const key = this.stringBody();
    return this.colon() ? key : null;
  }

  // Moves to the opening quote of the current object's next key, past its comma; false at the object's end (which it
  // leaves) or on a problem.
  private atKey(): bool {
    if (this.failed) return false;
    this.ws();
    if (this.pos >= this.end) {
      this.syntax("a key or }");
      return false;
    }
    let c = load<u8>(this.pos);
    const top = this.depth - 1;
    if (top < 0) {
      this.fail("nextKey() called outside an object");
      return false;
    }
    if (c == 0x7d) {
      this.pos++;
      this.depth--;
      return false;
    }
    if (unchecked(this.first[top])) {
      unchecked((this.first[top] = false));
    } else {
      if (c != 0x2c) {
        this.syntax(", or }");
        return false;
      }
      this.pos++;
      this.ws();
      c = this.pos < this.end ? load<u8>(this.pos) : 0;
    }
    if (c != 0x22) {
      this.syntax("a key string");
      return false;
    }
    return true;
  }

  // Moves past the colon after a key.
  // nextKey without decoding the key: the position of its opening quote, past it and its colon; 0 at the object's end
  // (which it leaves) or on a problem.
  private skipKey(): usize {
    if (!this.atKey()) return 0;
    const key = this.pos;
    this.skipStringBody();
    return this.colon() ? key : 0;
  }

  private colon(): bool {
    this.ws();
    if (this.pos >= this.end || load<u8>(this.pos) != 0x3a) {
      this.syntax(":");
      return false;
    }
    this.pos++;
    return true;
  }

  /**
   * An object whose values are all strings, checked as readMap checks it (the same problems, with the same paths) but
   * not decoded: its JSON, for readMap to read when the map is first used (the generated classes' map fields), or
   * null for `{}` and on a problem. A kept node list's labels and annotations are most of its bytes and few plugins
   * read them: keeping their JSON costs one small view, decoding them a string per key and value and a map per node.
   * The JSON is a view into the bytes this reader reads, not a copy (a copy was a third of a 1,000-node list's decode):
   * the view keeps them alive, and they must not change while it is in use.
   */
  readMapBytes(): Uint8Array | null {
    if (!this.beginObject()) return null;
    const from = this.pos - 1;
    let members = 0;
    for (let key = this.skipKey(); key != 0; key = this.skipKey()) {
      this.ws();
      if (this.pos < this.end && load<u8>(this.pos) == 0x22) this.skipStringBody();
      else this.wrongKind("string");
      if (this.failed) {
        this.prefix("[" + quote(this.keyAt(key)) + "]");
        return null;
      }
      members++;
    }
    if (this.failed || members == 0) return null;
    return this.data.subarray(<i32>(from - this.start), <i32>(this.pos - this.start));
  }

  // The key whose opening quote is at `at` (already checked), for a problem's path; the position is kept.
  private keyAt(at: usize): string {
    const pos = this.pos;
    this.pos = at;
    const key = this.stringBody();
    this.pos = pos;
    return key;
  }

  /** Enters a list; false (and a recorded problem) when the next value is not one. */
  beginArray(): bool {
    if (this.failed) return false;
    this.ws();
    if (this.pos < this.end && load<u8>(this.pos) == 0x5b) {
      if (this.depth >= MAX_DEPTH) {
        this.fail("JSON nested deeper than " + MAX_DEPTH.toString() + " levels");
        return false;
      }
      this.pos++;
      unchecked((this.first[this.depth++] = true));
      return true;
    }
    this.wrongKind("list");
    return false;
  }

  /** True when another element of the current list follows (the reader is positioned at it). */
  nextItem(): bool {
    if (this.failed) return false;
    this.ws();
    if (this.pos >= this.end) {
      this.syntax("a value or ]");
      return false;
    }
    const c = load<u8>(this.pos);
    const top = this.depth - 1;
    if (top < 0) {
      this.fail("nextItem() called outside a list");
      return false;
    }
    if (c == 0x5d) {
      this.pos++;
      this.depth--;
      return false;
    }
    if (unchecked(this.first[top])) {
      unchecked((this.first[top] = false));
      return true;
    }
    if (c != 0x2c) {
      this.syntax(", or ]");
      return false;
    }
    this.pos++;
    return true;
  }

  readString(): string {
    if (this.failed) return "";
    this.ws();
    if (this.pos < this.end && load<u8>(this.pos) == 0x22) return this.stringBody();
    this.wrongKind("string");
    return "";
  }

  readBool(): bool {
    if (this.failed) return false;
    this.ws();
    if (this.pos < this.end) {
      const c = load<u8>(this.pos);
      if (c == 0x74) return this.literal("true");
      if (c == 0x66) {
        this.literal("false");
        return false;
      }
    }
    this.wrongKind("bool");
    return false;
  }

  readF64(): f64 {
    if (this.failed) return 0;
    this.ws();
    const s = this.pos;
    const c = s < this.end ? load<u8>(s) : 0;
    if (c != 0x2d && !(c >= 0x30 && c <= 0x39)) {
      this.wrongKind("number");
      return 0;
    }
    return this.numberBody();
  }

  /** A number that must be an integer within i32 (1e3 and 80.0 are accepted, 1.5 is not). */
  readI32(): i32 {
    if (this.failed) return 0;
    const v = this.readF64();
    if (this.failed) return 0;
    if (v != Math.trunc(v) || v < -2147483648.0 || v > 2147483647.0) {
      this.fail("expected i32, got " + v.toString());
      return 0;
    }
    return <i32>v;
  }

  /**
   * An object whose values are all strings. Read into `into` when given (a field's default), so that decoding a
   * field allocates no second map: most maps of a kept node list are small or `{}`.
   */
  readMap(into: Map<string, string> | null = null): Map<string, string> {
    let m: Map<string, string>;
    if (into === null) m = new Map<string, string>();
    else {
      m = into;
      // A key given twice: the last value of the field wins, as with a fresh map.
      if (m.size > 0) m.clear();
    }
    if (!this.beginObject()) return m;
    let k = this.nextKey();
    while (present(k)) {
      const key = changetype<string>(k);
      const v = this.readString();
      if (this.failed) {
        this.prefix("[" + quote(key) + "]");
        return m;
      }
      m.set(key, v);
      k = this.nextKey();
    }
    return m;
  }

  /** A list whose elements are all strings; read into `into` when given, as readMap does. */
  readStrings(into: string[] | null = null): string[] {
    const out = listInto<string>(into);
    if (!this.beginArray()) return out;
    let i = 0;
    while (this.nextItem()) {
      const v = this.readString();
      if (this.failed) {
        this.prefix("[" + i.toString() + "]");
        return out;
      }
      out.push(v);
      i++;
    }
    return out;
  }

  /** Skips the next value whatever it is, checking its syntax. */
  skip(): void {
    if (this.failed) return;
    this.ws();
    const c = this.pos < this.end ? load<u8>(this.pos) : 0;
    if (c == 0x22) {
      this.skipStringBody();
    } else if (c == 0x7b) {
      // A skipped object builds no strings: its keys are checked, not decoded.
      this.beginObject();
      while (this.skipKey() != 0) this.skip();
    } else if (c == 0x5b) {
      this.beginArray();
      while (this.nextItem()) this.skip();
    } else if (c == 0x74) {
      this.literal("true");
    } else if (c == 0x66) {
      this.literal("false");
    } else if (c == 0x6e) {
      this.literal("null");
    } else if (c == 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.numberBody();
    } else {
      this.syntax("a value");
    }
  }

  /** Checks that nothing but white space follows the document. */
  finish(): void {
    if (this.failed) return;
    this.ws();
    if (this.pos != this.end) this.syntax("end of input");
  }

  // Reads a number at pos (a '-' or a digit) per the JSON grammar.
  private numberBody(): f64 {
    const scan = scanNumber(this.pos, this.end);
    this.pos = scan.next;
    if (scan.problem !== null) {
      this.syntax(scan.problem!);
      return 0;
    }
    return scan.value;
  }

  // Moves past a string at pos (at its opening quote) without building its value unless it has escapes.
  private skipStringBody(): void {
    let p = this.pos + 1;
    const end = this.end;
    while (p < end) {
      const c = <u32>load<u8>(p);
      if (c == 0x22) {
        this.pos = p + 1;
        return;
      }
      if (c == 0x5c || c < 0x20) break;
      p++;
    }
    this.stringBody(); // escapes or a problem: the full scan checks them
  }

  // Reads a string at pos (which is at its opening quote) and returns its value.
  private stringBody(): string {
    let p = this.pos + 1;
    const s = p;
    const end = this.end;
    let high: u32 = 0;
    let hash: u32 = FNV_OFFSET;
    // Fast path: no escapes and no control characters, so the bytes between the quotes are the UTF-8 of the value;
    // when they are all ASCII, they are the UTF-16 units too. The hash is asciiString's, computed in the same pass.
    while (p < end) {
      const c = <u32>load<u8>(p);
      if (c == 0x22) {
        this.pos = p + 1;
        return high < 0x80 ? asciiString(s, p - s, hash) : decodeUtf8(s, p);
      }
      if (c == 0x5c || c < 0x20) break;
      high |= c;
      hash = (hash ^ c) * FNV_PRIME;
      p++;
    }
    const scan = scanEscapedString(s, end);
    this.pos = scan.next;
    if (scan.problem !== null) {
      this.syntax(scan.problem!);
      return "";
    }
    return scan.value;
  }
}

/** The map readMapBytes kept the JSON of (checked then), or an empty one for null. */
export function mapOfJson(json: Uint8Array | null): Map<string, string> {
  const m = new Map<string, string>();
  if (json !== null) new JsonReader(json).readMap(m);
  return m;
}

/**
 * The list a decoded list is read into: `into` emptied (a field's default, so decoding allocates no second list; a
 * field given twice keeps only its last value), or a new one when there is none (a list item has no default).
 */
export function listInto<T>(into: Array<T> | null): Array<T> {
  if (into === null) return new Array<T>();
  if (into.length > 0) into.length = 0;
  return into;
}

/** A string as a JSON literal, for error paths such as `labels["a.b/c"]`. */
export function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x22 || c == 0x5c) out += "\\" + String.fromCharCode(c);
    else if (c < 0x20) out += "\\u00" + (c < 0x10 ? "0" : "") + c.toString(16);
    else out += String.fromCharCode(c);
  }
  return out + '"';
}
