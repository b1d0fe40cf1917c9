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

export async function* readWatchEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<WatchEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') yield decodeEvent(line);
        newline = buffered.indexOf('\n');
      }
    }
    const rest = (buffered + decoder.decode()).trim();
    if (rest !== '') yield decodeEvent(rest);
  } finally {
    // Reached on break/return by the consumer too: cancelling the body closes the connection.
    await reader.cancel().catch(() => undefined);
  }
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
