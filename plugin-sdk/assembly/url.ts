// Percent-encoding for the paths and queries a provider builds from names it does not control (node names, Service
// names, annotation values, page tokens): RFC 3986 unreserved characters stay, every other byte of the UTF-8 form
// is %XX. Slashes are encoded too, so a value can never add a path segment.

const HEX = "0123456789ABCDEF";

function isUnreserved(c: i32): bool {
  return (
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c == 0x2d || // -
    c == 0x2e || // .
    c == 0x5f || // _
    c == 0x7e // ~
  );
}

/** One path segment or query component, percent-encoded (UTF-8; lone surrogates as U+FFFD). */
export function encodeComponent(value: string): string {
  const bytes = Uint8Array.wrap(String.UTF8.encode(value));
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const c = <i32>bytes[i];
    if (isUnreserved(c)) out += String.fromCharCode(c);
    else out += "%" + HEX.charAt(c >> 4) + HEX.charAt(c & 15);
  }
  return out;
}

/** A path from segments, each encoded: urlPath(["instances", "by-name", name]) -> "/instances/by-name/node%2F1". */
export function urlPath(segments: string[]): string {
  let out = "";
  for (let i = 0; i < segments.length; i++) out += "/" + encodeComponent(segments[i]);
  return out;
}

/** A query string built pair by pair, in order; a key may repeat (tag=a&tag=b). */
export class Query {
  private parts: string[] = [];

  add(key: string, value: string): Query {
    this.parts.push(encodeComponent(key) + "=" + encodeComponent(value));
    return this;
  }

  /** "" when empty, else "?k=v&...", ready to append to a path. */
  toString(): string {
    return this.parts.length == 0 ? "" : "?" + this.parts.join("&");
  }
}
