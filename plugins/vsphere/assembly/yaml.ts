// The YAML that vsphere.conf is written in: block mappings and sequences by indentation, `- key: value` items, flow
// sequences and mappings of scalars on one line (`datacenters: [DC0, "DC 1"]`), plain, 'single' and "double" quoted
// scalars, comments. Anything else YAML has (anchors, aliases, tags, block scalars, multi-line scalars, several
// documents) is refused with its line, never guessed at: a cloud config is short, and a misread one is worse than a
// refused one. A duplicate key is refused too (yaml.v2 would keep the last one silently).

export enum YamlKind {
  Null,
  Scalar,
  Map,
  Seq,
}

export class YamlNode {
  kind: YamlKind = YamlKind.Null;
  /** A scalar's text, unquoted and unescaped. */
  text: string = "";
  /** A plain (unquoted) scalar: only these are read as booleans, numbers and null. */
  plain: bool = false;
  line: i32 = 0;
  keys: string[] = [];
  values: YamlNode[] = [];
  items: YamlNode[] = [];

  get(key: string): YamlNode | null {
    const i = this.keys.indexOf(key);
    return i < 0 ? null : this.values[i];
  }
}

export class YamlResult {
  root: YamlNode = new YamlNode();
  /** "line N: why" for the first thing not read; "" when the whole text was read. */
  error: string = "";
}

class Line {
  no: i32;
  indent: i32;
  text: string;

  constructor(no: i32, indent: i32, text: string) {
    this.no = no;
    this.indent = indent;
    this.text = text;
  }
}

export function parseYaml(text: string): YamlResult {
  const out = new YamlResult();
  const reader = new BlockReader();
  const error = reader.split(text);
  if (error != "") {
    out.error = error;
    return out;
  }
  if (reader.lines.length == 0) return out;
  out.root = reader.node(0);
  if (reader.error == "" && reader.pos < reader.lines.length)
    reader.fail(reader.lines[reader.pos], "unexpected indentation");
  out.error = reader.error;
  return out;
}

class BlockReader {
  lines: Line[] = [];
  pos: i32 = 0;
  error: string = "";

  /** The content lines (comments and blank lines dropped); an error for what is refused line by line. */
  split(text: string): string {
    const raw = text.split("\n");
    let started = false;
    for (let i = 0; i < raw.length; i++) {
      let s = raw[i];
      if (s.endsWith("\r")) s = s.substring(0, s.length - 1);
      let indent = 0;
      while (indent < s.length && s.charCodeAt(indent) == 0x20) indent++;
      const content = stripComment(s.substring(indent)).trimEnd();
      if (content.length == 0) continue;
      const where = "line " + (i + 1).toString() + ": ";
      if (content.charCodeAt(0) == 0x09) return where + "a tab in indentation (YAML indents with spaces)";
      if (indent == 0 && (content == "---" || content.startsWith("--- "))) {
        if (started) return where + "a second YAML document (one is read)";
        if (content != "---") return where + "content after --- (put it on the next line)";
        started = true;
        continue;
      }
      if (indent == 0 && content == "...") break;
      if (indent == 0 && content.startsWith("%")) return where + "YAML directives are not supported";
      started = true;
      this.lines.push(new Line(i + 1, indent, content));
    }
    return "";
  }

  fail(line: Line, why: string): YamlNode {
    if (this.error == "") this.error = "line " + line.no.toString() + ": " + why;
    return new YamlNode();
  }

  /** The node that starts at the current line (indented at least `min`). */
  node(min: i32): YamlNode {
    const line = this.lines[this.pos];
    if (line.indent < min) return this.fail(line, "unexpected indentation");
    if (isSeqItem(line.text)) return this.seq(line.indent);
    if (mapColon(line.text) >= 0) return this.map(line.indent);
    const value = inline(line.text, line.no);
    this.pos++;
    if (value.error != "") return this.fail(line, value.error);
    this.noDeeper(line.indent);
    return value.node;
  }

  private seq(indent: i32): YamlNode {
    const out = new YamlNode();
    out.kind = YamlKind.Seq;
    out.line = this.lines[this.pos].no;
    while (this.error == "" && this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.indent != indent || !isSeqItem(line.text)) break;
      let col = 1;
      while (col < line.text.length && line.text.charCodeAt(col) == 0x20) col++;
      if (col >= line.text.length) {
        this.pos++;
        out.items.push(this.deeperOrNull(indent, line.no));
        continue;
      }
      // `- key: value`: the rest of the line is read as if it were a line of its own at its column, so the keys
      // below it line up with it.
      this.lines[this.pos] = new Line(line.no, indent + col, line.text.substring(col));
      out.items.push(this.node(indent + col));
    }
    return out;
  }

  private map(indent: i32): YamlNode {
    const out = new YamlNode();
    out.kind = YamlKind.Map;
    out.line = this.lines[this.pos].no;
    while (this.error == "" && this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.indent != indent || isSeqItem(line.text)) break;
      const colon = mapColon(line.text);
      if (colon < 0) return this.fail(line, "expected key: value");
      const key = inline(line.text.substring(0, colon), line.no);
      if (key.error != "" || key.node.kind == YamlKind.Map || key.node.kind == YamlKind.Seq) {
        return this.fail(line, key.error != "" ? key.error : "a key must be a scalar");
      }
      if (out.keys.includes(key.node.text)) return this.fail(line, "key " + key.node.text + " given twice");
      const rest = line.text.substring(colon + 1).trimStart().trimEnd();
      this.pos++;
      let value: YamlNode;
      if (rest.length == 0) {
        value =
          this.pos < this.lines.length && this.lines[this.pos].indent == indent && isSeqItem(this.lines[this.pos].text)
            ? this.seq(indent)
            : this.deeperOrNull(indent, line.no);
      } else {
        const v = inline(rest, line.no);
        if (v.error != "") return this.fail(line, v.error);
        value = v.node;
        this.noDeeper(indent);
      }
      out.keys.push(key.node.text);
      out.values.push(value);
    }
    return out;
  }

  /** The block indented deeper than `indent` that follows, or null when the next line is not deeper. */
  private deeperOrNull(indent: i32, lineNo: i32): YamlNode {
    if (this.pos < this.lines.length && this.lines[this.pos].indent > indent) return this.node(indent + 1);
    const empty = new YamlNode();
    empty.line = lineNo;
    return empty;
  }

  /** A value given on its line cannot go on below it (a multi-line plain scalar, or a key: value under a scalar). */
  private noDeeper(indent: i32): void {
    if (this.pos < this.lines.length && this.lines[this.pos].indent > indent) {
      this.fail(this.lines[this.pos], "unexpected indentation (multi-line values are not supported)");
    }
  }
}

function isSeqItem(text: string): bool {
  return text == "-" || text.startsWith("- ");
}

/** Where the `:` of `key: value` is (a quoted key may hold one); -1 when the line is no mapping entry. */
function mapColon(text: string): i32 {
  let i = 0;
  const first = text.charCodeAt(0);
  if (first == 0x22 || first == 0x27) {
    i = closingQuote(text, 0);
    if (i < 0) return -1;
    i++;
  }
  if (first == 0x5b || first == 0x7b) return -1; // a flow collection is a value, never a key here
  for (; i < text.length; i++) {
    if (text.charCodeAt(i) == 0x3a && (i + 1 == text.length || text.charCodeAt(i + 1) == 0x20)) return i;
  }
  return -1;
}

/** The index of the quote closing the one at `start`; -1 when it is not closed. */
function closingQuote(text: string, start: i32): i32 {
  const q = text.charCodeAt(start);
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (q == 0x22 && c == 0x5c) i++;
    else if (c == q) {
      if (q == 0x27 && i + 1 < text.length && text.charCodeAt(i + 1) == 0x27) i++;
      else return i;
    }
  }
  return -1;
}

/** The line up to a `#` that starts a comment (at the start or after a space, outside quotes). */
function stripComment(text: string): string {
  let quote = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote != 0) {
      if (quote == 0x22 && c == 0x5c) i++;
      else if (c == quote) quote = 0;
    } else if ((c == 0x22 || c == 0x27) && (i == 0 || " [{,:".indexOf(text.charAt(i - 1)) >= 0)) {
      quote = c;
    } else if (c == 0x23 && (i == 0 || text.charCodeAt(i - 1) == 0x20)) {
      return text.substring(0, i);
    }
  }
  return text;
}

class Inline {
  node: YamlNode = new YamlNode();
  error: string = "";
}

/** A value written on one line: a scalar, or a flow sequence or mapping of scalars. */
function inline(raw: string, lineNo: i32): Inline {
  const out = new Inline();
  const text = raw.trimStart().trimEnd();
  out.node.line = lineNo;
  if (text.length == 0) return out;
  const c = text.charAt(0);
  if (c == "[" || c == "{") return flow(text, lineNo);
  if ("&*!|>%@`".indexOf(c) >= 0) {
    out.error = 'a value starting with "' + c + '" (YAML anchors, aliases, tags and block scalars are not supported)';
    return out;
  }
  if (c == "-" && text.length > 1 && text.charAt(1) == " ") {
    out.error = "a sequence item where a value is expected";
    return out;
  }
  const s = scalar(text);
  if (s === null) out.error = "a quoted value that does not end where the value does: " + text;
  else out.node = s;
  out.node.line = lineNo;
  return out;
}

function scalar(text: string): YamlNode | null {
  const node = new YamlNode();
  node.kind = YamlKind.Scalar;
  const q = text.charCodeAt(0);
  if (q != 0x22 && q != 0x27) {
    node.plain = true;
    node.text = text;
    if (text == "~" || text == "null" || text == "Null" || text == "NULL") node.kind = YamlKind.Null;
    return node;
  }
  if (closingQuote(text, 0) != text.length - 1) return null;
  const inner = text.substring(1, text.length - 1);
  if (q == 0x27) {
    node.text = inner.replaceAll("''", "'");
    return node;
  }
  const unescaped = unescapeDouble(inner);
  if (unescaped === null) return null;
  node.text = unescaped;
  return node;
}

function unescapeDouble(inner: string): string | null {
  let out = "";
  for (let i = 0; i < inner.length; i++) {
    const c = inner.charAt(i);
    if (c != "\\") {
      out += c;
      continue;
    }
    if (++i >= inner.length) return null;
    const e = inner.charAt(i);
    if (e == "n") out += "\n";
    else if (e == "t") out += "\t";
    else if (e == "r") out += "\r";
    else if (e == "0") out += "\0";
    else if (e == "\\" || e == '"' || e == "/" || e == " ") out += e;
    else if (e == "x" || e == "u") {
      const n = e == "x" ? 2 : 4;
      const hex = inner.substring(i + 1, i + 1 + n);
      if (hex.length != n) return null;
      const code = parseHex(hex);
      if (code < 0) return null;
      out += String.fromCharCode(code);
      i += n;
    } else return null;
  }
  return out;
}

function parseHex(hex: string): i32 {
  let n = 0;
  for (let i = 0; i < hex.length; i++) {
    const c = hex.charCodeAt(i);
    const d =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) return -1;
    n = (n << 4) | d;
  }
  return n;
}

/** `[a, "b"]` or `{k: v}`, scalars only, on one line. */
function flow(text: string, lineNo: i32): Inline {
  const out = new Inline();
  const isSeq = text.charAt(0) == "[";
  if (!text.endsWith(isSeq ? "]" : "}")) {
    out.error = "a flow " + (isSeq ? "sequence" : "mapping") + " must end on its line";
    return out;
  }
  out.node.kind = isSeq ? YamlKind.Seq : YamlKind.Map;
  const parts = splitFlow(text.substring(1, text.length - 1));
  if (parts === null) {
    out.error = "nested or unterminated values inside a flow collection are not supported: " + text;
    return out;
  }
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i].trimStart().trimEnd();
    if (part.length == 0 && i == parts.length - 1 && i > 0) break; // a trailing comma
    if (part.length == 0 && parts.length == 1) break; // [] or {}
    if (isSeq) {
      const item = inline(part, lineNo);
      if (item.error != "" || part.length == 0) {
        out.error = item.error != "" ? item.error : "an empty item in " + text;
        return out;
      }
      out.node.items.push(item.node);
      continue;
    }
    const colon = mapColon(part);
    const key: YamlNode | null = colon >= 0 ? scalar(part.substring(0, colon).trimStart().trimEnd()) : null;
    const value = colon < 0 ? new Inline() : inline(part.substring(colon + 1), lineNo);
    if (key === null || value.error != "" || out.node.keys.includes(key.text)) {
      out.error = "a flow mapping entry that is not a new key: value: " + part;
      return out;
    }
    out.node.keys.push(key.text);
    out.node.values.push(value.node);
  }
  return out;
}

/** The comma-separated parts of a flow collection's inside; null for a nested collection or an open quote. */
function splitFlow(inner: string): string[] | null {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner.charCodeAt(i);
    if (c == 0x22 || c == 0x27) {
      const end = closingQuote(inner, i);
      if (end < 0) return null;
      i = end;
    } else if (c == 0x5b || c == 0x5d || c == 0x7b || c == 0x7d) {
      return null;
    } else if (c == 0x2c) {
      out.push(inner.substring(from, i));
      from = i + 1;
    }
  }
  out.push(inner.substring(from));
  return out;
}
