// ccm_http_bytes frames (ABI 1.3) written and read by hand, independently of the host's http-frame.ts, so the tests
// pin the wire format itself: [u32 LE head length][UTF-8 JSON head][body bytes].

export interface FramedAnswer {
  head: {
    status?: number;
    headers?: Record<string, string>;
    error?: { code: string; message: string };
  };
  body: Buffer;
}

/** A request frame; a string head is used as it is (malformed heads). */
export function requestFrame(head: unknown, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const headBytes = Buffer.from(typeof head === 'string' ? head : JSON.stringify(head), 'utf8');
  const frame = new Uint8Array(4 + headBytes.byteLength + body.byteLength);
  new DataView(frame.buffer).setUint32(0, headBytes.byteLength, true);
  frame.set(headBytes, 4);
  frame.set(body, 4 + headBytes.byteLength);
  return frame;
}

export function readAnswerFrame(bytes: Uint8Array): FramedAnswer {
  const headLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const head = JSON.parse(Buffer.from(bytes.subarray(4, 4 + headLength)).toString('utf8')) as FramedAnswer['head'];
  return { head, body: Buffer.from(bytes.subarray(4 + headLength)) };
}

/** Every byte value, and sequences that are not UTF-8 (a lone continuation byte, a truncated sequence, 0xff). */
export const BINARY = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from([0x80, 0xe2, 0x82, 0xff, 0x00]),
]);
