// The INI dialect of Go's gcfg, which upstream cloud providers read their cloud config with (OCCM's cloud.conf,
// cloud-provider-vsphere's legacy vsphere.conf): `[section]` and `[section "subsection"]` headers, `name = value`
// lines, names of sections and variables in any case, values optionally in double quotes (with \" \\ \n \t
// escapes), comments from `;` or `#` outside quotes to the end of the line, and a name alone meaning the boolean true.
// A variable may repeat; a reader keeps every occurrence in order, so list-valued options can collect them and the
// others keep the last, as gcfg does. IniConfig (config.ts) is the simpler reader: one value per key, no subsections
// or inline comments.

export class IniEntry {
  /** Lower case. */
  key: string = "";
  value: string = "";
  /** `name` with no `=`: gcfg's "blank" value, true for booleans. */
  blank: bool = false;
  line: i32 = 0;
}

export class IniSection {
  /** Lower case. */
  name: string = "";
  /** The quoted part of `[name "sub"]`, as written; "" when there is none. */
  sub: string = "";
  hasSub: bool = false;
  entries: IniEntry[] = [];

  /** `[LoadBalancer]` or `[LoadBalancerClass "x"]`, as the user wrote it, for messages. */
  get title(): string {
    return "[" + this.name + (this.hasSub ? ' "' + this.sub + '"' : "") + "]";
  }
}

export class IniFile {
  sections: IniSection[] = [];
  /** The first line that is not valid, with its number; "" when every line is. */
  error: string = "";
}

export function parseIni(text: string): IniFile {
  const out = new IniFile();
  const lines = text.split("\n");
  let current: IniSection | null = null;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = stripComment(lines[i]).trimStart().trimEnd();
    if (line.length == 0) continue;
    if (line.startsWith("[")) {
      const section = parseHeader(line);
      if (section === null) return fail(out, lineNo, "bad section header " + line);
      out.sections.push(section);
      current = section;
      continue;
    }
    if (current === null) return fail(out, lineNo, "a variable before any [section]");
    const entry = parseVariable(line);
    if (entry === null) return fail(out, lineNo, "expected name = value");
    entry.line = lineNo;
    current.entries.push(entry);
  }
  return out;
}

function fail(out: IniFile, line: i32, message: string): IniFile {
  out.error = "line " + line.toString() + ": " + message;
  return out;
}

/** The line up to a `;` or `#` that is not inside double quotes. */
function stripComment(line: string): string {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c == 0x5c && quoted) i++; // an escaped character inside quotes
    else if (c == 0x22) quoted = !quoted;
    else if (!quoted && (c == 0x3b || c == 0x23)) return line.substring(0, i);
  }
  return line;
}

function parseHeader(line: string): IniSection | null {
  if (!line.endsWith("]")) return null;
  const inner = line.substring(1, line.length - 1).trimStart().trimEnd();
  const section = new IniSection();
  const space = inner.indexOf(" ");
  if (space < 0) {
    section.name = inner.toLowerCase();
  } else {
    section.name = inner.substring(0, space).toLowerCase();
    const sub = inner.substring(space + 1).trimStart().trimEnd();
    if (sub.length < 2 || !sub.startsWith('"') || !sub.endsWith('"')) return null;
    section.sub = sub.substring(1, sub.length - 1);
    section.hasSub = true;
  }
  return isName(section.name) ? section : null;
}

function parseVariable(line: string): IniEntry | null {
  const entry = new IniEntry();
  const eq = line.indexOf("=");
  const name = (eq < 0 ? line : line.substring(0, eq)).trimStart().trimEnd();
  if (!isName(name)) return null;
  entry.key = name.toLowerCase();
  if (eq < 0) {
    entry.blank = true;
    return entry;
  }
  const value = unquote(line.substring(eq + 1).trimStart().trimEnd());
  if (value === null) return null;
  entry.value = value;
  return entry;
}

/** Letters, digits, `-`, `_` and `.`, starting with a letter: what gcfg takes for section and variable names. */
function isName(name: string): bool {
  if (name.length == 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    const other = (c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x5f || c == 0x2e;
    if (!letter && (i == 0 || !other)) return false;
  }
  return true;
}

/** A value with its quoted parts unquoted and unescaped; null for an unterminated quote or a bad escape. */
function unquote(raw: string): string | null {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charAt(i);
    if (c == '"') {
      quoted = !quoted;
    } else if (c == "\\") {
      if (i + 1 >= raw.length) return null;
      const next = raw.charAt(++i);
      if (next == "n") out += "\n";
      else if (next == "t") out += "\t";
      else if (next == "b") out += "\b";
      else if (next == '"' || next == "\\") out += next;
      else return null;
    } else {
      out += c;
    }
  }
  return quoted ? null : out;
}
