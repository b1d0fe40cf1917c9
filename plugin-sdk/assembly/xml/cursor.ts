// The scanning half of the XML reader: a position in the document text, the first error, and the lexical pieces
// (names, white space, quoted literals, character data with its references) that XmlReader's grammar is made of.

import { decodeUtf8 } from "../json/scan";
import { TextBuffer } from "./buffer";
import {
  isCharCodePoint,
  isCharUnit,
  isHighSurrogate,
  isLowSurrogate,
  isNameHighSurrogate,
  isNameStartUnit,
  isNameUnit,
  isSpace,
} from "./chars";

export enum XmlEvent {
  Error = -1,
  End = 0,
  StartElement = 1,
  EndElement = 2,
  Text = 3,
}

// Decoded text is built here and copied out as a string: decode and cdata finish with it before they return.
// @ts-ignore: decorator
@lazy const scratch = new TextBuffer();

export class XmlCursor {
  protected s: string;
  protected pos: i32 = 0;
  /** The first problem met (`invalid XML at line 3, column 7: ...`); null while all is well. */
  error: string | null = null;

  constructor(text: string) {
    this.s = text;
    if (text.length > 0 && text.charCodeAt(0) == 0xfeff) this.pos = 1; // a byte-order mark is not content
  }

  /** The text of UTF-8 bytes as TextDecoder gives it (invalid sequences become U+FFFD). */
  static textOf(bytes: Uint8Array): string {
    return decodeUtf8(bytes.dataStart, bytes.dataStart + <usize>bytes.length);
  }

  get failed(): bool {
    return this.error !== null;
  }

  fail(message: string): XmlEvent {
    if (this.error === null) this.error = "invalid XML at " + this.where() + ": " + message;
    this.pos = this.s.length;
    return XmlEvent.Error;
  }

  protected refuse(message: string): bool {
    this.fail(message);
    return false;
  }

  protected where(): string {
    let line = 1;
    let column = 1;
    const end = min(this.pos, this.s.length);
    for (let i = 0; i < end; i++) {
      if (this.s.charCodeAt(i) == 0x0a) {
        line++;
        column = 1;
      } else column++;
    }
    return "line " + line.toString() + ", column " + column.toString();
  }

  /** The code unit at i, which the caller has checked is inside the document. */
  @inline protected unitAt(i: i32): i32 {
    return <i32>load<u16>(changetype<usize>(this.s) + (<usize>i << 1));
  }

  /** Where `unit` next appears at or after `from`, or -1. (String#indexOf makes a call at every position.) */
  protected find(unit: i32, from: i32): i32 {
    const n = this.s.length;
    for (let i = max(from, 0); i < n; i++) if (this.unitAt(i) == unit) return i;
    return -1;
  }

  protected startsWithAt(prefix: string, at: i32): bool {
    return this.s.length - at >= prefix.length && this.isAt(prefix, at, at + prefix.length);
  }

  /**
   * Characters of [start, end) with references decoded and line ends normalized (CRLF and CR to LF); in an attribute
   * value, white space characters become spaces as XML's attribute-value normalization says. Null after a failure.
   * Text without a reference or a character to normalize is a substring; other text is built in one pass.
   */
  protected decode(start: i32, end: i32, attribute: bool): string | null {
    const s = this.s;
    const out = scratch;
    let building = false;
    let run = start; // start of the stretch copied as is
    let i = start;
    while (i < end) {
      const c = this.unitAt(i);
      if (isPlainUnit(c)) {
        i++;
        continue;
      }
      if (c == 0x3e && !attribute) {
        if (i >= start + 2 && s.charCodeAt(i - 1) == 0x5d && s.charCodeAt(i - 2) == 0x5d) {
          this.pos = i - 2;
          this.fail("]]> in character data");
          return null;
        }
        i++;
        continue;
      }
      if (c == 0x26 || c == 0x0d || (attribute && (c == 0x0a || c == 0x09))) {
        if (!building) out.reset();
        building = true;
        out.appendRange(s, run, i);
        if (c == 0x26) {
          let semi = i + 1;
          while (semi < end && s.charCodeAt(semi) != 0x3b) semi++;
          if (semi >= end) {
            this.pos = i;
            this.fail("& not followed by a reference (&name; or &#number;)");
            return null;
          }
          if (!this.reference(i + 1, semi, out)) return null;
          i = semi + 1;
        } else {
          if (c == 0x0d && i + 1 < end && s.charCodeAt(i + 1) == 0x0a) i++;
          out.appendUnit(attribute ? 0x20 : 0x0a);
          i++;
        }
        run = i;
        continue;
      }
      if (attribute && c == 0x3c) {
        this.pos = i;
        this.fail("< in an attribute value");
        return null;
      }
      if (!this.checkChar(i)) return null;
      i += isHighSurrogate(c) ? 2 : 1;
    }
    if (!building) return s.substring(start, end);
    out.appendRange(s, run, end);
    return out.toString();
  }

  /** Characters of a CDATA section [start, end), line ends normalized; null after a failure. */
  protected cdata(start: i32, end: i32): string | null {
    const s = this.s;
    const out = scratch;
    let building = false;
    let run = start;
    for (let i = start; i < end; i++) {
      const c = s.charCodeAt(i);
      if (c == 0x0d) {
        if (!building) out.reset();
        building = true;
        out.appendRange(s, run, i);
        out.appendUnit(0x0a);
        if (i + 1 < end && s.charCodeAt(i + 1) == 0x0a) i++;
        run = i + 1;
      } else if (!this.checkChar(i)) return null;
      else if (isHighSurrogate(c)) i++;
    }
    if (!building) return s.substring(start, end);
    out.appendRange(s, run, end);
    return out.toString();
  }

  /** Whether the character at i is an XML Char (a surrogate pair counts as one); fails when it is not. */
  protected checkChar(i: i32): bool {
    const c = this.s.charCodeAt(i);
    if (isCharUnit(c) && !isLowSurrogate(c) && !isHighSurrogate(c)) return true;
    if (isHighSurrogate(c) && i + 1 < this.s.length && isLowSurrogate(this.s.charCodeAt(i + 1))) return true;
    this.pos = i;
    this.fail("character U+" + c.toString(16).toUpperCase() + " is not allowed in XML");
    return false;
  }

  /**
   * The reference between `&` and `;` (the five predefined entities, &#N; and &#xH;) onto out; false after a
   * failure. Read in place: a document of a million references allocates nothing per reference.
   */
  protected reference(start: i32, end: i32, out: TextBuffer): bool {
    const s = this.s;
    if (s.charCodeAt(start) != 0x23) {
      const unit = this.predefinedEntity(start, end);
      if (unit >= 0) {
        out.appendUnit(unit);
        return true;
      }
      this.pos = start - 1;
      return this.refuse("unknown entity &" + s.substring(start, end) + "; (only amp, lt, gt, quot, apos and character references)");
    }
    const hex = end - start >= 2 && s.charCodeAt(start + 1) == 0x78;
    const digits = start + (hex ? 2 : 1);
    let cp: i64 = 0;
    for (let i = digits; i < end; i++) {
      const d = digitValue(this.unitAt(i), hex);
      if (d < 0 || cp > 0x10ffff) {
        cp = -1;
        break;
      }
      cp = cp * (hex ? 16 : 10) + d;
    }
    if (digits == end || cp < 0 || !isCharCodePoint(cp)) {
      this.pos = start - 1;
      return this.refuse("&" + s.substring(start, end) + "; is not a character reference to an XML character");
    }
    out.appendCodePoint(<i32>cp);
    return true;
  }

  /** The character a predefined entity's name [start, end) stands for, or -1. */
  private predefinedEntity(start: i32, end: i32): i32 {
    if (this.isAt("amp", start, end)) return 0x26;
    if (this.isAt("lt", start, end)) return 0x3c;
    if (this.isAt("gt", start, end)) return 0x3e;
    if (this.isAt("quot", start, end)) return 0x22;
    if (this.isAt("apos", start, end)) return 0x27;
    return -1;
  }

  /** Whether [start, end) of the document is exactly word. */
  private isAt(word: string, start: i32, end: i32): bool {
    if (end - start != word.length) return false;
    for (let i = 0; i < word.length; i++) if (this.unitAt(start + i) != <i32>word.charCodeAt(i)) return false;
    return true;
  }

  /** A Name (production 5) starting at pos; "" after a failure. */
  protected readName(what: string): string {
    const s = this.s;
    const start = this.pos;
    let i = start;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (isNameHighSurrogate(c) && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
        i += 2;
        continue;
      }
      if (!(i == start ? isNameStartUnit(c) : isNameUnit(c))) break;
      i++;
    }
    if (i == start) {
      this.fail("expected " + what);
      return "";
    }
    this.pos = i;
    return s.substring(start, i);
  }

  protected skipSpace(): i32 {
    const start = this.pos;
    while (this.pos < this.s.length && isSpace(this.s.charCodeAt(this.pos))) this.pos++;
    return this.pos - start;
  }

  /**
   * A quoted literal at pos (after optional white space), decoded when `decode` is set. `what` + `whose` names it in
   * an error; they are joined only then, not for each of a tag's 40,000 attributes.
   */
  protected readQuoted(what: string, whose: string, decode: bool): string | null {
    this.skipSpace();
    const q = this.pos < this.s.length ? this.s.charCodeAt(this.pos) : -1;
    if (q != 0x22 && q != 0x27) {
      this.fail("expected a quoted " + what + whose);
      return null;
    }
    const close = this.find(q, this.pos + 1);
    if (close < 0) {
      this.fail("unterminated " + what + whose);
      return null;
    }
    const start = this.pos + 1;
    const value = decode ? this.decode(start, close, true) : this.s.substring(start, close);
    if (value !== null) this.pos = close + 1;
    return value;
  }
}

/** A character that character data and attribute values keep as it is: no markup, reference, line end or surrogate. */
@inline function isPlainUnit(c: i32): bool {
  if (c >= 0x3f) return c < 0xd800;
  return c >= 0x20 && c != 0x26 && c != 0x3c && c != 0x3e;
}

export function digitValue(c: i32, hex: bool): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (!hex) return -1;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}
