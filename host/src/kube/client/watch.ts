// Reads a watch response body: one JSON event per line. Unlike client-node's Watch, a line that is not valid JSON
// is an error (the watch restarts from the last resourceVersion and the event is delivered again) instead of
// being dropped silently, which would lose that change for good.
import type { KubeObject } from './wire.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  /** The object, or for ERROR a metav1.Status. */
  object: KubeObject;
}

const TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export class WatchDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WatchDecodeError';
  }
}

/** `body`: a Node stream or a web ReadableStream; returning early (break) destroys it, closing the connection. */
export async function* readWatchEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<WatchEvent> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let start = 0;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(start, newline).trim();
      if (line !== '') yield decodeEvent(line);
      start = newline + 1;
      newline = buffered.indexOf('\n', start);
    }
    buffered = buffered.slice(start);
  }
  const rest = (buffered + decoder.decode()).trim();
  if (rest !== '') yield decodeEvent(rest);
}

export function decodeEvent(line: string): WatchEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new WatchDecodeError(`watch: undecodable event: ${line.slice(0, 200)}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new WatchDecodeError('watch: event is not an object');
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !TYPES.has(type) || typeof object !== 'object' || object === null) {
    throw new WatchDecodeError(`watch: malformed event: ${line.slice(0, 200)}`);
  }
  return { type: type as WatchEventType, object: object as WatchEvent['object'] };
}
