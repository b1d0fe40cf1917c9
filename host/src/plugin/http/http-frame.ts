// The frames of ccm_http_bytes (ABI 1.3), the same shape both ways: [u32 LE head length H][H bytes: UTF-8 JSON
// head][body bytes]. The body travels as raw bytes, so nothing on either side escapes, unescapes or re-encodes it
// (ccm_http's JSON string body costs that on every request), and binary bodies pass unchanged.
// Imported by the worker too (its own error answers): keep it free of anything but Buffer.

/** Bytes of the head length that starts every frame. */
export const FRAME_PREFIX_BYTES = 4;

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
