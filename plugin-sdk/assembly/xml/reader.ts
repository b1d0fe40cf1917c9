// A pull reader for XML 1.0 documents such as the Query-protocol APIs answer (EC2, ELBv2): `next()` moves to the next
// start tag, end tag or run of text and says which. Without exceptions in AssemblyScript, the first problem is kept
// in `error` and every later `next()` answers XmlEvent.Error. Checked as a validating-free parser must: names,
// characters, matching tags, one root, attribute quoting and uniqueness, references. Not supported, on purpose: a
// DOCTYPE (no API sends one, and its entities are the classic expansion attack), so only the five predefined
// entities and character references exist. Namespaces are tolerated, not resolved: `name` is the local part,
// `qname` keeps the prefix, and xmlns attributes are ordinary attributes.

import { firstRepeatedName, localName, repeatsEarlierName, XmlAttribute } from "./attributes";
import { isSpace } from "./chars";
import { digitValue, XmlCursor, XmlEvent } from "./cursor";

export { localName, XmlAttribute, XmlEvent };

/** Documents nested deeper are refused: code that walks a tree recursively must not meet a hostile depth. */
export const XML_MAX_DEPTH: i32 = 256;

export class XmlReader extends XmlCursor {
  private stack: string[] = [];
  private sawRoot: bool = false;
  private pendingEnd: bool = false; // after <a/>: the EndElement comes next
  /** Where each attribute name of the start tag being read begins, for the error that names one given twice. */
  private nameStarts: i32[] = [];
  /** Of the current StartElement or EndElement: the name with its prefix, and without it. */
  qname: string = "";
  /** Of the current Text event: the characters, references decoded, CDATA included as is. */
  text: string = "";
  /** Of the current StartElement, in document order. */
  attributes: XmlAttribute[] = [];

  constructor(text: string) {
    super(text);
  }

  /** A reader of UTF-8 bytes (invalid sequences read as U+FFFD, as TextDecoder reads them). */
  static fromBytes(bytes: Uint8Array): XmlReader {
    return new XmlReader(XmlCursor.textOf(bytes));
  }

  get name(): string {
    return localName(this.qname);
  }

  /** Open elements around the current position (the current StartElement included). */
  get depth(): i32 {
    return this.stack.length;
  }

  /** The value of an attribute of the current StartElement by qualified or local name; null when absent. */
  attr(name: string): string | null {
    for (let i = 0; i < this.attributes.length; i++) {
      const a = this.attributes[i];
      if (a.qname == name || a.name == name) return a.value;
    }
    return null;
  }

  next(): XmlEvent {
    if (this.error !== null) return XmlEvent.Error;
    if (this.pendingEnd) {
      this.pendingEnd = false;
      this.qname = this.stack.pop();
      return XmlEvent.EndElement;
    }
    const s = this.s;
    while (this.pos < s.length) {
      if (s.charCodeAt(this.pos) != 0x3c) {
        const ev = this.readText();
        if (ev != XmlEvent.End) return ev; // End: whitespace outside the root, nothing to report
        continue;
      }
      const c = this.pos + 1 < s.length ? s.charCodeAt(this.pos + 1) : -1;
      if (c == 0x2f) return this.readEndTag();
      if (c == 0x3f) {
        if (!this.skipProcessingInstruction()) return XmlEvent.Error;
      } else if (c == 0x21) {
        const ev = this.readMarkupDeclaration();
        if (ev != XmlEvent.End) return ev;
      } else {
        return this.readStartTag();
      }
    }
    if (this.stack.length > 0) return this.fail("unexpected end of document inside <" + this.stack[this.stack.length - 1] + ">");
    if (!this.sawRoot) return this.fail("no root element");
    return XmlEvent.End;
  }

  /** After a StartElement: the text of the element and its descendants, up to and including its EndElement. */
  readElementText(): string {
    const depth = this.stack.length;
    const runs: string[] = []; // joined once: an element of many text runs must not cost their count squared
    while (true) {
      const ev = this.next();
      if (ev == XmlEvent.Text) runs.push(this.text);
      else if (ev == XmlEvent.EndElement && this.stack.length < depth) break;
      else if (ev == XmlEvent.Error || ev == XmlEvent.End) break;
    }
    return runs.join("");
  }

  /** After a StartElement: skips to and past its EndElement. */
  skipElement(): void {
    this.readElementText();
  }

  private readText(): XmlEvent {
    const s = this.s;
    const start = this.pos;
    let end = this.find(0x3c, start);
    if (end < 0) end = s.length;
    if (this.stack.length == 0) {
      for (let i = start; i < end; i++) {
        if (!isSpace(s.charCodeAt(i))) {
          this.pos = i;
          return this.fail(this.sawRoot ? "text after the root element" : "text before the root element");
        }
      }
      this.pos = end;
      return XmlEvent.End;
    }
    const decoded = this.decode(start, end, false);
    if (decoded === null) return XmlEvent.Error;
    this.pos = end;
    this.text = decoded;
    return XmlEvent.Text;
  }

  private readStartTag(): XmlEvent {
    if (this.stack.length == 0 && this.sawRoot) return this.fail("a second root element");
    if (this.stack.length >= XML_MAX_DEPTH) return this.fail("XML nested deeper than " + XML_MAX_DEPTH.toString() + " levels");
    this.pos++;
    const qname = this.readName("an element name after <");
    if (this.failed) return XmlEvent.Error;
    const attributes: XmlAttribute[] = [];
    this.nameStarts.length = 0;
    const s = this.s;
    while (true) {
      const spaced = this.skipSpace() > 0;
      if (this.pos >= s.length) return this.failInTag(attributes, "unexpected end of document in the start tag <" + qname + ">");
      const c = s.charCodeAt(this.pos);
      if (c == 0x3e || (c == 0x2f && this.startsWithAt("/>", this.pos))) {
        this.pos += c == 0x3e ? 1 : 2;
        this.pendingEnd = c == 0x2f;
        break;
      }
      if (!spaced) return this.failInTag(attributes, "expected white space, > or /> in the start tag <" + qname + ">");
      if (!this.readAttribute(attributes)) return this.failInTag(attributes, null);
    }
    if (this.repeatedName(attributes)) return XmlEvent.Error;
    this.sawRoot = true;
    this.stack.push(qname);
    this.qname = qname;
    this.attributes = attributes;
    return XmlEvent.StartElement;
  }

  /** Reads `name="value"` onto attributes (the name first, so that a failure in the value still sees it). */
  private readAttribute(attributes: XmlAttribute[]): bool {
    const start = this.pos;
    const qname = this.readName("an attribute name");
    if (this.failed) return false;
    if (repeatsEarlierName(attributes, qname)) {
      this.pos = start;
      return this.refuse("attribute " + qname + " given twice");
    }
    const attribute = new XmlAttribute(qname, "");
    attributes.push(attribute);
    this.nameStarts.push(start);
    this.skipSpace();
    if (this.pos >= this.s.length || this.s.charCodeAt(this.pos) != 0x3d) {
      return this.refuse("expected = after the attribute name " + qname);
    }
    this.pos++;
    const value = this.readQuoted("the value of attribute ", qname, true);
    if (value === null) return false;
    attribute.value = value;
    return true;
  }

  /** A failure inside a start tag (`message`, or one already recorded when null), unless a name was given twice. */
  private failInTag(attributes: XmlAttribute[], message: string | null): XmlEvent {
    if (message !== null) this.fail(message);
    this.repeatedName(attributes);
    return XmlEvent.Error;
  }

  /**
   * Whether a name past those compared in turn was given twice; it becomes the error then. It stands before anything
   * else wrong in the tag (a name is read before the rest of its attribute), so it replaces an error the tag recorded.
   */
  private repeatedName(attributes: XmlAttribute[]): bool {
    const repeated = firstRepeatedName(attributes);
    if (repeated < 0) return false;
    this.error = null;
    this.pos = this.nameStarts[repeated];
    this.fail("attribute " + attributes[repeated].qname + " given twice");
    return true;
  }

  private readEndTag(): XmlEvent {
    this.pos += 2;
    const qname = this.readName("an element name after </");
    if (this.failed) return XmlEvent.Error;
    this.skipSpace();
    if (this.pos >= this.s.length || this.s.charCodeAt(this.pos) != 0x3e) return this.fail("expected > to close </" + qname);
    if (this.stack.length == 0) return this.fail("end tag </" + qname + "> without a start tag");
    const open = this.stack[this.stack.length - 1];
    if (open != qname) return this.fail("end tag </" + qname + "> does not match <" + open + ">");
    this.pos++;
    this.stack.pop();
    this.qname = qname;
    return XmlEvent.EndElement;
  }

  /** `<?target ...?>`: skipped, except the XML declaration, which must come first and is checked. */
  private skipProcessingInstruction(): bool {
    const at = this.pos;
    this.pos += 2;
    const target = this.readName("a processing instruction target");
    if (this.failed) return false;
    const isDeclaration = target.toLowerCase() == "xml";
    if (isDeclaration && (target != "xml" || at != (this.s.charCodeAt(0) == 0xfeff ? 1 : 0))) {
      this.pos = at;
      this.fail("<?" + target + " is only allowed as the XML declaration at the very start");
      return false;
    }
    const close = this.s.indexOf("?>", this.pos);
    if (close < 0) {
      this.fail("unterminated processing instruction <?" + target);
      return false;
    }
    if (isDeclaration) return this.checkDeclaration(close);
    if (close > this.pos && !isSpace(this.s.charCodeAt(this.pos))) {
      this.fail("expected white space or ?> after <?" + target);
      return false;
    }
    for (let i = this.pos; i < close; i++) if (!this.checkChar(i)) return false;
    this.pos = close + 2;
    return true;
  }

  /** <?xml version="1.x" [encoding="..."] [standalone="yes|no"]?>: pos is after "xml", close at "?>". */
  private checkDeclaration(close: i32): bool {
    const names = ["version", "encoding", "standalone"];
    let next = 0;
    while (true) {
      const spaced = this.skipSpace() > 0;
      if (this.pos == close) break;
      if (!spaced) return this.refuse("expected white space in the XML declaration");
      const name = this.readName("version, encoding or standalone in the XML declaration");
      if (this.failed) return false;
      let k = next;
      while (k < names.length && names[k] != name) k++;
      if (k == names.length || (next == 0 && k != 0)) {
        return this.refuse("unexpected " + name + " in the XML declaration");
      }
      next = k + 1;
      this.skipSpace();
      if (this.pos >= close || this.s.charCodeAt(this.pos) != 0x3d) return this.refuse("expected = after " + name);
      this.pos++;
      const value = this.readQuoted(name, "", false);
      if (value === null) return false;
      if (this.pos > close) return this.refuse("unterminated XML declaration");
      if (!declarationValueOk(name, value)) return this.refuse("bad " + name + ' "' + value + '"');
    }
    if (next == 0) return this.refuse("the XML declaration has no version");
    this.pos = close + 2;
    return true;
  }

  /** `<!--...-->`, `<![CDATA[...]]>` or `<!DOCTYPE` (refused). End when it was skipped, Text for CDATA. */
  private readMarkupDeclaration(): XmlEvent {
    const s = this.s;
    if (this.startsWithAt("<!--", this.pos)) {
      const start = this.pos + 4;
      const dashes = s.indexOf("--", start);
      if (dashes < 0) return this.fail("unterminated comment");
      if (dashes + 2 >= s.length || s.charCodeAt(dashes + 2) != 0x3e) {
        this.pos = dashes;
        return this.fail("-- inside a comment");
      }
      for (let i = start; i < dashes; i++) if (!this.checkChar(i)) return XmlEvent.Error;
      this.pos = dashes + 3;
      return XmlEvent.End;
    }
    if (this.startsWithAt("<![CDATA[", this.pos)) {
      if (this.stack.length == 0) return this.fail("CDATA outside the root element");
      const start = this.pos + 9;
      const close = s.indexOf("]]>", start);
      if (close < 0) return this.fail("unterminated CDATA section");
      const text = this.cdata(start, close);
      if (text === null) return XmlEvent.Error;
      this.text = text;
      this.pos = close + 3;
      return XmlEvent.Text;
    }
    if (this.startsWithAt("<!DOCTYPE", this.pos)) return this.fail("a DOCTYPE is not supported");
    return this.fail("expected <!-- or <![CDATA[ after <!");
  }
}

function declarationValueOk(name: string, value: string): bool {
  if (name == "standalone") return value == "yes" || value == "no";
  if (name == "version") {
    if (value.length < 3 || !value.startsWith("1.")) return false;
    for (let i = 2; i < value.length; i++) if (digitValue(value.charCodeAt(i), false) < 0) return false;
    return true;
  }
  // EncName (production 81): [A-Za-z] ([A-Za-z0-9._] | '-')*
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (!(letter || (i > 0 && (digitValue(c, false) >= 0 || c == 0x2e || c == 0x5f || c == 0x2d)))) return false;
  }
  return value.length > 0;
}
