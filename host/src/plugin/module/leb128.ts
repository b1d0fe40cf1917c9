// Unsigned LEB128, the variable-length integer encoding of the WebAssembly binary format.
// Values are kept as JS numbers: every quantity we read (sizes, counts, page counts) fits in 2^53.

export class WasmFormatError extends Error {
  override name = 'WasmFormatError';
}

export interface DecodedUnsigned {
  value: number;
  /** Offset just after the encoded value. */
  next: number;
}

/** Reads an unsigned LEB128 of at most `maxBits` bits starting at `offset`. */
export function readUnsigned(bytes: Uint8Array, offset: number, maxBits = 32): DecodedUnsigned {
  let value = 0;
  let scale = 1;
  let position = offset;
  const maxBytes = Math.ceil(maxBits / 7);
  for (let i = 0; i < maxBytes; i++) {
    if (position >= bytes.length) throw new WasmFormatError(`truncated LEB128 at offset ${offset}`);
    const byte = bytes[position++] as number;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) {
      if (value > 2 ** maxBits - 1) throw new WasmFormatError(`LEB128 at offset ${offset} exceeds ${maxBits} bits`);
      return { value, next: position };
    }
    scale *= 128;
  }
  throw new WasmFormatError(`LEB128 at offset ${offset} is longer than ${maxBytes} bytes`);
}

/** Encodes an unsigned integer (0 <= value < 2^53) in the shortest LEB128 form. */
export function encodeUnsigned(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`cannot LEB128-encode ${value}`);
  const out: number[] = [];
  let rest = value;
  do {
    const low = rest % 128;
    rest = Math.floor(rest / 128);
    out.push(rest === 0 ? low : low | 0x80);
  } while (rest !== 0);
  return Uint8Array.from(out);
}
