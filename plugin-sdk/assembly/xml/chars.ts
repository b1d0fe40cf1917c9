// Character classes of XML 1.0 (fifth edition), on UTF-16 code units: the reader walks AssemblyScript strings, so a
// character outside the BMP arrives as a surrogate pair and is classified from both halves.

/** Char (production 2) for a BMP code unit that is not a surrogate. */
export function isCharUnit(c: i32): bool {
  if (c >= 0x20) return c <= 0xd7ff || (c >= 0xe000 && c <= 0xfffd);
  return c == 0x09 || c == 0x0a || c == 0x0d;
}

export function isHighSurrogate(c: i32): bool {
  return c >= 0xd800 && c <= 0xdbff;
}

export function isLowSurrogate(c: i32): bool {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** A code point a character reference may name (production 2). */
export function isCharCodePoint(cp: i64): bool {
  if (cp >= 0x10000) return cp <= 0x10ffff;
  return isCharUnit(<i32>cp) && !(cp >= 0xd800 && cp <= 0xdfff);
}

/** NameStartChar (production 4) for a BMP code unit; a surrogate pair counts as one (#x10000-#xEFFFF, checked by the caller). */
export function isNameStartUnit(c: i32): bool {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c == 0x5f || c == 0x3a;
  return (
    (c >= 0xc0 && c <= 0xd6) ||
    (c >= 0xd8 && c <= 0xf6) ||
    (c >= 0xf8 && c <= 0x2ff) ||
    (c >= 0x370 && c <= 0x37d) ||
    (c >= 0x37f && c <= 0x1fff) ||
    (c >= 0x200c && c <= 0x200d) ||
    (c >= 0x2070 && c <= 0x218f) ||
    (c >= 0x2c00 && c <= 0x2fef) ||
    (c >= 0x3001 && c <= 0xd7ff) ||
    (c >= 0xf900 && c <= 0xfdcf) ||
    (c >= 0xfdf0 && c <= 0xfffd)
  );
}

/** NameChar (production 4a) for a BMP code unit. */
export function isNameUnit(c: i32): bool {
  if (isNameStartUnit(c)) return true;
  return (
    c == 0x2d ||
    c == 0x2e ||
    (c >= 0x30 && c <= 0x39) ||
    c == 0xb7 ||
    (c >= 0x300 && c <= 0x36f) ||
    (c >= 0x203f && c <= 0x2040)
  );
}

/** A supplementary code point a name may hold (#x10000-#xEFFFF), from its high surrogate. */
export function isNameHighSurrogate(c: i32): bool {
  return c >= 0xd800 && c <= 0xdb7f;
}

export function isSpace(c: i32): bool {
  return c == 0x20 || c == 0x0a || c == 0x09 || c == 0x0d;
}
