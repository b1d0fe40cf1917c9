// Rewrites parts of one section of a module and re-encodes that section's size; every other byte stays as it was.
// The memory cap and the table cap rewrite limits this way.
import { encodeUnsigned } from './leb128.ts';
import type { SectionSpan } from './module-reader.ts';

export interface ByteReplacement {
  /** Offsets within the module, inside the section's content. */
  start: number;
  end: number;
  bytes: Uint8Array;
}

/** The module with `replacements` (in offset order, not overlapping) made inside `section`. */
export function rewriteSection(module: Uint8Array, section: SectionSpan, replacements: ByteReplacement[]): Uint8Array {
  const content: Uint8Array[] = [];
  let at = section.contentStart;
  for (const replacement of replacements) {
    if (replacement.start < at || replacement.end > section.end) {
      throw new RangeError(`replacement ${replacement.start}-${replacement.end} is outside section ${section.id}`);
    }
    content.push(module.subarray(at, replacement.start), replacement.bytes);
    at = replacement.end;
  }
  content.push(module.subarray(at, section.end));
  const body = concatBytes(content);
  return concatBytes([
    module.subarray(0, section.start),
    Uint8Array.of(section.id),
    encodeUnsigned(body.length),
    body,
    module.subarray(section.end),
  ]);
}

/** Limits with a maximum, as the binary format writes them (flags 0x01, minimum, maximum). */
export function encodeLimits(min: number, max: number): Uint8Array {
  return concatBytes([Uint8Array.of(0x01), encodeUnsigned(min), encodeUnsigned(max)]);
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
