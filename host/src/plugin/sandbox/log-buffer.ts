// The log records one plugin instance writes during a call, in memory both threads share: the worker appends each
// record as the guest writes it, and the main thread takes them at the call's next hand-over (a host request, the end
// of the call), or once nothing can write any more (the call abandoned at its deadline, the worker gone). A record
// costs no message and no wake-up of the main thread: posting one was half of what a record cost the plugin's thread
// (the structured clone, then the wake-up), and the main thread's event loop turned once more for each. Records
// written before a worker was terminated (a call computing past its deadline) are still read from here.
//
// Only one side writes at a time: the worker while the call runs, the main thread (emptying it) while the guest waits
// for it or is gone. The byte count is published with Atomics after the record's bytes, and the main thread reads it
// after it read the channel's state, so it sees every record written before the hand-over.
//
// Layout: [u32 end][record...], a record being [u8 source][u8 level][u16 0][u32 length][UTF-8 text].

/** 'ccm_log': `text` is a LogRecord JSON document. 'kernel': Extism's log_* with `level`. 'runtime': ours. */
export type LogSource = 'ccm_log' | 'kernel' | 'runtime';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** A record as the guest wrote it (the main thread tags it with the slot and the export). */
export interface LogEntry {
  source: LogSource;
  level: LogLevel;
  text: string;
}

const SOURCES: readonly LogSource[] = ['ccm_log', 'kernel', 'runtime'];
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const HEADER_BYTES = 8;
/** What a record takes besides its text. */
export const LOG_RECORD_OVERHEAD = 8;
const INITIAL_BYTES = 4 * 1024;

export class LogBuffer {
  readonly buffer: SharedArrayBuffer;
  readonly #end: Int32Array;
  // Length-tracking views: they follow the buffer when either thread grows it.
  readonly #bytes: Buffer;
  readonly #view: DataView;

  constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.#end = new Int32Array(buffer, 0, 1);
    this.#bytes = Buffer.from(buffer);
    this.#view = new DataView(buffer);
  }

  /** A buffer that holds up to `capacity` bytes of records (text and LOG_RECORD_OVERHEAD each). */
  static create(capacity: number): LogBuffer {
    const maxByteLength = HEADER_BYTES + capacity;
    const buffer = new SharedArrayBuffer(Math.min(HEADER_BYTES + INITIAL_BYTES, maxByteLength), { maxByteLength });
    const logs = new LogBuffer(buffer);
    Atomics.store(logs.#end, 0, HEADER_BYTES);
    return logs;
  }

  /** The worker's side: appends a record of `text` (UTF-8 bytes, or a string); false when it does not fit. */
  append(source: LogSource, level: LogLevel, text: Uint8Array | string): boolean {
    const start = Atomics.load(this.#end, 0);
    const length = typeof text === 'string' ? Buffer.byteLength(text, 'utf8') : text.byteLength;
    const end = start + LOG_RECORD_OVERHEAD + length;
    if (!this.#reserve(end)) return false;
    const view = this.#view;
    view.setUint8(start, SOURCES.indexOf(source));
    view.setUint8(start + 1, LEVELS.indexOf(level));
    view.setUint16(start + 2, 0);
    view.setUint32(start + 4, length, true);
    if (typeof text === 'string') this.#bytes.write(text, start + LOG_RECORD_OVERHEAD, length, 'utf8');
    else this.#bytes.set(text, start + LOG_RECORD_OVERHEAD);
    Atomics.store(this.#end, 0, end);
    return true;
  }

  /** The main thread's side: the records written since the last take, oldest first; empties the buffer. */
  take(): LogEntry[] {
    const end = Math.min(Atomics.load(this.#end, 0), this.buffer.byteLength);
    if (end <= HEADER_BYTES) return [];
    const entries: LogEntry[] = [];
    const view = this.#view;
    let at = HEADER_BYTES;
    while (at + LOG_RECORD_OVERHEAD <= end) {
      const source = SOURCES[view.getUint8(at)];
      const level = LEVELS[view.getUint8(at + 1)];
      const length = view.getUint32(at + 4, true);
      const textEnd = at + LOG_RECORD_OVERHEAD + length;
      if (source === undefined || level === undefined || textEnd > end) break;
      entries.push({ source, level, text: this.#bytes.toString('utf8', at + LOG_RECORD_OVERHEAD, textEnd) });
      at = textEnd;
    }
    Atomics.store(this.#end, 0, HEADER_BYTES);
    return entries;
  }

  #reserve(bytes: number): boolean {
    if (bytes <= this.buffer.byteLength) return true;
    if (bytes > this.buffer.maxByteLength) return false;
    // Doubling, so a call that logs a lot grows it a few times rather than at every record.
    this.buffer.grow(Math.min(this.buffer.maxByteLength, Math.max(bytes, this.buffer.byteLength * 2)));
    return true;
  }
}
