// The scanning half of the XML reader: a position in the document text, the first error, and the lexical pieces
// (names, white space, quoted literals, character data with its references) that XmlReader's grammar is made of.

import { decodeUtf8 } from "../json/scan";
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

  protected startsWithAt(prefix: string, at: i32): bool {
    return this.s.length - at >= prefix.length && this.s.substring(at, at + prefix.length) == prefix;
  }

  /** A run of character data up to the next `<`: Text inside the root, only white space outside it. */
  /**
   * Characters of [start, end) with references decoded and line ends normalized (CRLF and CR to LF); in an attribute
   * value, white space characters become spaces as XML's attribute-value normalization says. Null after a failure.
   */
  protected decode(start: i32, end: i32, attribute: bool): string | null {
    const s = this.s;
    let out = "";
    let run = start; // start of the stretch copied as is
    let i = start;
    while (i < end) {
      const c = s.charCodeAt(i);
      if (c == 0x26 || c == 0x0d || (attribute && (c == 0x0a || c == 0x09)) || (c == 0x3e && !attribute)) {
        if (c == 0x3e) {
          if (i >= start + 2 && s.charCodeAt(i - 1) == 0x5d && s.charCodeAt(i - 2) == 0x5d) {
            this.pos = i - 2;
            this.fail("]]> in character data");
            return null;
          }
          i++;
          continue;
        }
        out += s.substring(run, i);
        if (c == 0x26) {
          const semi = s.indexOf(";", i);
          if (semi < 0 || semi >= end) {
            this.pos = i;
            this.fail("& not followed by a reference (&name; or &#number;)");
            return null;
          }
          const value = this.reference(i + 1, semi);
          if (value === null) return null;
          out += value;
          i = semi + 1;
        } else {
          if (c == 0x0d && i + 1 < end && s.charCodeAt(i + 1) == 0x0a) i++;
          out += attribute ? " " : "\n";
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
    return out + s.substring(run, end);
  }

  /** Whether the character at i is an XML Char (a surrogate pair counts as one); fails when it is not. */
  /** Whether the character at i is an XML Char (a surrogate pair counts as one); fails when it is not. */
  protected checkChar(i: i32): bool {
    const c = this.s.charCodeAt(i);
    if (isCharUnit(c) && !isLowSurrogate(c) && !isHighSurrogate(c)) return true;
    if (isHighSurrogate(c) && i + 1 < this.s.length && isLowSurrogate(this.s.charCodeAt(i + 1))) return true;
    this.pos = i;
    this.fail("character U+" + c.toString(16).toUpperCase() + " is not allowed in XML");
    return false;
  }

  /** The text of the reference between `&` and `;` (the five predefined entities, &#N; and &#xH;). */
  /** The text of the reference between `&` and `;` (the five predefined entities, &#N; and &#xH;). */
  protected reference(start: i32, end: i32): string | null {
    const body = this.s.substring(start, end);
    if (body == "amp") return "&";
    if (body == "lt") return "<";
    if (body == "gt") return ">";
    if (body == "quot") return '"';
    if (body == "apos") return "'";
    this.pos = start - 1;
    if (!body.startsWith("#")) {
      this.fail("unknown entity &" + body + "; (only amp, lt, gt, quot, apos and character references)");
      return null;
    }
    const hex = body.startsWith("#x");
    const digits = body.substring(hex ? 2 : 1);
    let cp: i64 = 0;
    for (let i = 0; i < digits.length; i++) {
      const d = digitValue(digits.charCodeAt(i), hex);
      if (d < 0 || cp > 0x10ffff) {
        cp = -1;
        break;
      }
      cp = cp * (hex ? 16 : 10) + d;
    }
    if (digits.length == 0 || cp < 0 || !isCharCodePoint(cp)) {
      this.fail("&" + body + "; is not a character reference to an XML character");
      return null;
    }
    return String.fromCodePoint(<i32>cp);
  }

  /** A Name (production 5) starting at pos; "" after a failure. */
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

  /** A quoted literal at pos (after optional white space), decoded when `decode` is set. */
  protected readQuoted(what: string, decode: bool): string | null {
    this.skipSpace();
    const q = this.pos < this.s.length ? this.s.charCodeAt(this.pos) : -1;
    if (q != 0x22 && q != 0x27) {
      this.fail("expected a quoted " + what);
      return null;
    }
    const close = this.s.indexOf(String.fromCharCode(q), this.pos + 1);
    if (close < 0) {
      this.fail("unterminated " + what);
      return null;
    }
    const start = this.pos + 1;
    const value = decode ? this.decode(start, close, true) : this.s.substring(start, close);
    if (value !== null) this.pos = close + 1;
    return value;
  }

}

export function digitValue(c: i32, hex: bool): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (!hex) return -1;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}
