// The shared memory one plugin instance and the main thread talk through. A call is a hand-over of one state word:
// the main thread writes the request and flips `state` to `call`; the worker (waiting on it) runs it and flips it to
// `done`, or to `hostRequest` when the plugin needs the main thread (ccm_http*), which answers with `hostReply`.
// Neither side blocks its thread: both wait with Atomics.waitAsync, so a worker serves several instances, each on a
// channel of its own. Nothing is copied through postMessage on the call path.
//
// The buffer is a growable SharedArrayBuffer: it starts small and grows (up to a fixed maximum) when a message needs
// more room, so a pool of idle instances does not reserve 16 MiB each.

export const ChannelState = {
  /** No call: the worker waits. */
  idle: 0,
  /** A call request is in the payload; the worker runs it. */
  call: 1,
  /** The worker needs the main thread: `kind` says what, the payload holds the request. */
  hostRequest: 2,
  /** The main thread answered the host request; the worker continues the call. */
  hostReply: 3,
  /** The call finished: `kind` is a CallOutcome, the payload holds the output or a message. */
  done: 4,
  /**
   * Set by the main thread when the instance is out of service (its worker exited, or its call is over while the
   * guest waits): wakes the waiters, and a suspended guest is never resumed.
   */
  dead: 5,
  /** The guest is suspended in ccm_sleep_ms; the worker swaps it back to `call` when the pause ends. */
  sleeping: 6,
} as const;
export type ChannelStateValue = (typeof ChannelState)[keyof typeof ChannelState];

/** What a finished call produced (the `kind` slot when state is `done`). */
export const CallOutcome = {
  /** The payload is the plugin's output. */
  output: 0,
  /** The export returned 0 but set no output. */
  noOutput: 1,
  /** The plugin reported an Extism error (error_set); the payload is its text. */
  guestError: 2,
  /** The export returned a non-zero code (in `aux`); the payload is the Extism error text, if any. */
  nonZeroReturn: 3,
  /** The guest trapped; the payload is the message. The instance must not be used again. */
  trap: 4,
  /** The guest exceeded a limit (kernel memory, output size); the payload says which. Not reused either. */
  limit: 5,
  /** The module has no such export. */
  noSuchExport: 6,
} as const;
export type CallOutcomeValue = (typeof CallOutcome)[keyof typeof CallOutcome];

/** What a host request asks for (the `kind` slot when state is `hostRequest`). */
export const HostRequestKind = {
  /** A framed HTTP request and answer (broker/http-frame.ts): ccm_http_bytes's, and ccm_http's framed by the worker. */
  httpBytes: 2,
} as const;

const Slot = { state: 0, kind: 1, length: 2, aux: 3 } as const;
const HEADER_BYTES = 64;

export class Channel {
  readonly buffer: SharedArrayBuffer;
  readonly header: Int32Array;
  #payload: Uint8Array;
  #payloadView: DataView;
  // Length-tracking, like #payload: a Buffer for its UTF-8 writer (see writeText).
  readonly #payloadBuffer: Buffer;

  constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.#payload = new Uint8Array(buffer, HEADER_BYTES);
    this.#payloadView = new DataView(buffer, HEADER_BYTES);
    this.#payloadBuffer = Buffer.from(buffer, HEADER_BYTES);
  }

  static create(initialPayloadBytes: number, maxPayloadBytes: number): Channel {
    const buffer = new SharedArrayBuffer(HEADER_BYTES + initialPayloadBytes, {
      maxByteLength: HEADER_BYTES + maxPayloadBytes,
    });
    return new Channel(buffer);
  }

  get maxPayloadBytes(): number {
    return this.buffer.maxByteLength - HEADER_BYTES;
  }

  /** Grows the buffer so the payload can hold `bytes`; false when that is above the maximum. */
  reserve(bytes: number): boolean {
    if (bytes <= this.payload.length) return true;
    if (bytes > this.maxPayloadBytes) return false;
    // Double, so a series of slightly larger messages does not grow it each time.
    const target = Math.min(this.maxPayloadBytes, Math.max(bytes, this.payload.length * 2));
    this.buffer.grow(HEADER_BYTES + target);
    return true;
  }

  /** The payload area. Re-created when the other thread grew the buffer. */
  get payload(): Uint8Array {
    if (this.#payload.length !== this.buffer.byteLength - HEADER_BYTES) {
      this.#payload = new Uint8Array(this.buffer, HEADER_BYTES);
      this.#payloadView = new DataView(this.buffer, HEADER_BYTES);
    }
    return this.#payload;
  }

  get payloadView(): DataView {
    void this.payload;
    return this.#payloadView;
  }

  /**
   * Writes `text` as UTF-8 into the payload at `offset`, growing the buffer as needed, with no intermediate copy.
   * Returns the bytes written, or -1 when they would not fit under the maximum.
   *
   * Buffer#write rather than TextEncoder#encodeInto (which accepts shared views too): on Node 24 both are as fast for
   * a one-byte string, but encodeInto slows down by an order of magnitude once the text holds a single non-Latin-1
   * character (a two-byte string), where Buffer#write does not; encode + set was slower than either. The large
   * requests this matters for are measured by bench/plugin-runtime/plugin-ensure.ts.
   */
  writeText(offset: number, text: string): number {
    // UTF-8 takes at least one byte per UTF-16 unit: start with that much room, and work out the exact size only when
    // the write may have been cut short (Buffer#write stops before a character that does not fit, and none takes
    // more than 4 bytes).
    if (!this.reserve(offset + text.length)) return -1;
    const room = this.payload.length - offset;
    const written = this.#payloadBuffer.write(text, offset, room, 'utf8');
    if (room - written >= 4) return written;
    const exact = Buffer.byteLength(text, 'utf8');
    if (exact === written) return written;
    if (!this.reserve(offset + exact)) return -1;
    return this.#payloadBuffer.write(text, offset, exact, 'utf8');
  }

  /** Copies payload bytes out into a fresh, unshared buffer. */
  copyOut(offset: number, length: number): Uint8Array {
    // slice() copies out of shared memory element by element: fine for small messages, but from a few KiB up a
    // memmove (Buffer#copy) is faster even with the allocation (bench/plugin-runtime/plugin-ensure.ts makes such large calls).
    if (length < 4096) return this.payload.slice(offset, offset + length);
    const out = new Uint8Array(length);
    this.copyTo(out, offset, length);
    return out;
  }

  /** Copies `length` payload bytes from `offset` to the start of `target` (a memmove). */
  copyTo(target: Uint8Array, offset: number, length: number): void {
    const copied = this.#payloadBuffer.copy(target, 0, offset, offset + length);
    // Buffer#copy clamps where it would run past either end instead of failing: never hand over part of a message.
    if (copied !== length) {
      if (offset + length > this.payload.length || length > target.length) {
        throw new RangeError(`cannot copy ${length} payload bytes from ${offset} into ${target.length}`);
      }
      target.set(this.payload.subarray(offset, offset + length));
    }
  }

  get state(): number {
    return Atomics.load(this.header, Slot.state);
  }

  /** Publishes a new state and wakes whoever waits on it (the other thread, or this thread's async waiter). */
  publish(state: ChannelStateValue): void {
    Atomics.store(this.header, Slot.state, state);
    Atomics.notify(this.header, Slot.state);
  }

  /**
   * Swaps the state from `expected` to `next` if it still is `expected` (and wakes the waiters); false if it was not.
   * Where both threads may change the state at once (the end of a pause against the call's deadline), the one that
   * swaps first decides.
   */
  swap(expected: ChannelStateValue, next: ChannelStateValue): boolean {
    if (Atomics.compareExchange(this.header, Slot.state, expected, next) !== expected) return false;
    Atomics.notify(this.header, Slot.state);
    return true;
  }

  /** Swaps the state from `expected` to `next` without waking anyone (nobody waits for `next`); false if it was not. */
  exchange(expected: ChannelStateValue, next: ChannelStateValue): boolean {
    return Atomics.compareExchange(this.header, Slot.state, expected, next) === expected;
  }

  /** Changes the state without waking anyone (when nobody waits for this value). */
  set(state: ChannelStateValue): void {
    Atomics.store(this.header, Slot.state, state);
  }

  get kind(): number {
    return this.header[Slot.kind] as number;
  }
  set kind(value: number) {
    this.header[Slot.kind] = value;
  }
  get length(): number {
    return this.header[Slot.length] as number;
  }
  set length(value: number) {
    this.header[Slot.length] = value;
  }
  get aux(): number {
    return this.header[Slot.aux] as number;
  }
  set aux(value: number) {
    this.header[Slot.aux] = value;
  }

  /**
   * Resolves when the state is no longer `current`, or when someone wakes this channel's waiters (wake()); at once if
   * it was already different. Neither thread is blocked meanwhile. No timeout: one given to Atomics.waitAsync leaves a
   * timer behind that fires at its end even when the wait ended long before.
   */
  async waitChange(current: number): Promise<void> {
    const result = Atomics.waitAsync(this.header, Slot.state, current);
    if (result.async) await result.value;
  }

  /** Wakes whoever waits on the state without changing it. */
  wake(): void {
    Atomics.notify(this.header, Slot.state);
  }
}
