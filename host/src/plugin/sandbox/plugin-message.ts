// A message a plugin wrote (an error envelope's message, an Extism error) goes into a provider error, and from there
// into logs, Events and status conditions: it is cut to MAX_PLUGIN_MESSAGE_BYTES of UTF-8, the cut marked. Uncut, a
// plugin's 16 MB message was written whole to the log and sent to the apiserver as an Event.

const MAX_PLUGIN_MESSAGE_BYTES = 4096;

const encoder = new TextEncoder();
const scratch = new Uint8Array(MAX_PLUGIN_MESSAGE_BYTES);

const cutNote = (totalBytes: number): string =>
  `… [cut: the plugin's message has ${totalBytes} bytes, at most ${MAX_PLUGIN_MESSAGE_BYTES} are kept]`;

/** `text`, or its first MAX_PLUGIN_MESSAGE_BYTES of UTF-8 (whole characters) and a note saying it was cut. */
export function cutPluginMessage(text: string): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8.
  if (text.length * 3 <= MAX_PLUGIN_MESSAGE_BYTES) return text;
  const { read } = encoder.encodeInto(text, scratch);
  if (read === text.length) return text;
  return text.slice(0, read) + cutNote(Buffer.byteLength(text));
}

/** The same for a message as UTF-8 bytes: the cut falls before a character that would not fit whole. */
export function cutPluginMessageBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength <= MAX_PLUGIN_MESSAGE_BYTES) return bytes;
  let end = MAX_PLUGIN_MESSAGE_BYTES;
  // Back off over continuation bytes (10xxxxxx) to the lead byte of a character cut in two, and leave it out.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  const note = encoder.encode(cutNote(bytes.byteLength));
  const out = new Uint8Array(end + note.byteLength);
  out.set(bytes.subarray(0, end), 0);
  out.set(note, end);
  return out;
}
