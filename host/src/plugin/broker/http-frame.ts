// The frames of ccm_http_bytes (ABI 1.3), the same shape both ways: [u32 LE head length H][H bytes: UTF-8 JSON
// head][body bytes]. The body travels as raw bytes, so nothing on either side escapes, unescapes or re-encodes it
// (ccm_http's JSON string body costs that on every request), and binary bodies pass unchanged.
// Imported by the worker too (its own error answers): keep it free of anything but Buffer.

/** Bytes of the head length that starts every frame. */
const FRAME_PREFIX_BYTES = 4;

/**
 * The largest request head the main thread reads: method, URL and headers. More is refused unread, so that parsing a
 * head never holds the main thread (servers refuse request heads far smaller: 8-16 KiB is usual).
 */
export const MAX_HEAD_BYTES = 64 * 1024;

/** The deepest a request's JSON may nest (a head has 2 levels: the request and its headers). */
export const MAX_JSON_DEPTH = 8;

/**
 * Whether the JSON text in `bytes` nests arrays and objects deeper than `max` levels (brackets inside strings do not
 * count): a check in one pass, made before JSON.parse builds what it describes.
 */
export function jsonNestsDeeper(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
  return false;
}

export interface Frame {
  head: Uint8Array;
  body: Uint8Array;
}

/** Splits a frame into views of `bytes` (no copy); a string says why it is not one. */
export function splitFrame(bytes: Uint8Array): Frame | string {
  if (bytes.byteLength < FRAME_PREFIX_BYTES) {
    return `the block is ${bytes.byteLength} bytes, shorter than the ${FRAME_PREFIX_BYTES}-byte head length`;
  }
  const headLength = new DataView(bytes.buffer, bytes.byteOffset, FRAME_PREFIX_BYTES).getUint32(0, true);
  const rest = bytes.byteLength - FRAME_PREFIX_BYTES;
  if (headLength > rest) return `its head length ${headLength} is larger than the ${rest} bytes after it`;
  const bodyStart = FRAME_PREFIX_BYTES + headLength;
  return { head: bytes.subarray(FRAME_PREFIX_BYTES, bodyStart), body: bytes.subarray(bodyStart) };
}

/**
 * A frame of `head` (JSON text) and the body given as chunks, written once into one buffer: a response's chunks go
 * in as they arrived, without being joined first.
 */
export function buildFrame(head: string, body: readonly Uint8Array[] = []): Uint8Array {
  const headBytes = Buffer.byteLength(head, 'utf8');
  let bodyBytes = 0;
  for (const chunk of body) bodyBytes += chunk.byteLength;
  // Not Buffer.allocUnsafe: a small one is a view into a shared pool, which whoever keeps the frame would pin (and
  // js-sdk's CallContext.store would take whole as the block). Every byte is written below, so nothing old shows.
  const frame = Buffer.allocUnsafeSlow(FRAME_PREFIX_BYTES + headBytes + bodyBytes);
  frame.writeUInt32LE(headBytes, 0);
  frame.write(head, FRAME_PREFIX_BYTES, headBytes, 'utf8');
  let offset = FRAME_PREFIX_BYTES + headBytes;
  for (const chunk of body) {
    frame.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return frame;
}

/** The framed `{"error": {code, message}}` answer, with an empty body. */
export function errorFrame(code: string, message: string): Uint8Array {
  return buildFrame(JSON.stringify({ error: { code, message } }));
}
