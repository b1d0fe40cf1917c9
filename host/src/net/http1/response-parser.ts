// An incremental HTTP/1.1 response parser (RFC 9112) for a client that sends one request at a time on a
// connection: bytes go in as the socket delivers them, the head and the body's pieces come out. The head and the
// framing rules are response-head.ts's. Anything it cannot frame unambiguously is a ResponseParseError: the
// connection is then unusable, as a parser that guessed would hand the next request the rest of this answer.
//
// The end of a response is reported after push() has consumed its input, never from inside the loop: whoever hears
// of it may send the next request on the same connection, and the bytes still in hand must not become its answer.
// Bytes past the end of a response are an error (this client does not pipeline: no request is waiting for them).
// The body comes out as one chunk per push, however many chunks of the chunked coding the push held.
import { ConnectionClosedError, type ParseFailure, ResponseParseError } from './errors.ts';
import { addField, framingOf, keepAliveOf, parseHead, type ResponseHead } from './response-head.ts';

export type { ResponseHead, ResponseHeaders } from './response-head.ts';
export { ResponseParseError } from './errors.ts';

export interface ResponseSink {
  onHead(head: ResponseHead): void;
  onData(chunk: Buffer): void;
  /** The response is complete; `keepAlive`: the connection may carry the next request. */
  onEnd(keepAlive: boolean): void;
}

/** Longest status line plus header section accepted (Go's servers send a few hundred bytes). */
export const MAX_HEAD_BYTES = 64 * 1024;
/** Longest trailer section accepted after a chunked body (its fields are read, checked and dropped). */
export const MAX_TRAILER_BYTES = 16 * 1024;
const MAX_CHUNK_SIZE_LINE = 1024;

const State = {
  Idle: 0,
  Head: 1,
  Length: 2,
  ChunkSize: 3,
  ChunkData: 4,
  ChunkDataEnd: 5,
  Trailers: 6,
  UntilClose: 7,
  /** The response is complete; push() reports it once its input is consumed. */
  Done: 8,
} as const;
type State = (typeof State)[keyof typeof State];

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
// chunk = chunk-size [ chunk-ext ] CRLF; chunk-ext = *( ";" name [ "=" ( token / quoted-string ) ] ). RFC 9112
// §7.1.1 allows whitespace (BWS) around ";" and "="; llhttp refuses it, and so does this parser: nothing sends it.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t !#-\\[\\]-~\\x80-\\xff]|\\\\[\\t -~\\x80-\\xff])*"';
const CHUNK_SIZE = /^[0-9a-fA-F]+/;
const CHUNK_EXT = new RegExp(`^(?:;${TOKEN}(?:=(?:${TOKEN}|${QUOTED}))?)*$`);
/** Significant hex digits of a chunk size (2^52 bytes: beyond any real chunk, within a double's integers). */
const MAX_CHUNK_SIZE_DIGITS = 13;

export class ResponseParser {
  private state: State = State.Idle;
  private sink: ResponseSink | undefined;
  private method = 'GET';
  /** Bytes of an incomplete head, chunk-size line or trailer line. */
  private pending: Buffer | undefined;
  private remaining = 0;
  private trailerBytes = 0;
  private keepAlive = true;
  /** The body's pieces in the current push, as [from, to) offsets into its data; handed on as one chunk at its end. */
  private readonly pieces: number[] = [];

  /** The parser waits for the answer to a request; `method` decides whether the answer can have a body. */
  expect(method: string, sink: ResponseSink): void {
    if (this.state !== State.Idle) throw new Error('a response is still being parsed');
    this.state = State.Head;
    this.sink = sink;
    this.method = method;
    this.pending = undefined;
  }

  /** True while a response has been asked for and has not ended. */
  get busy(): boolean {
    return this.state !== State.Idle;
  }

  /** Feeds bytes from the connection. Throws ResponseParseError for bytes that are not a valid answer. */
  push(data: Buffer): void {
    if (this.state === State.Idle) {
      throw new ResponseParseError('unexpected-data', `${data.length} bytes arrived with no request outstanding`);
    }
    this.pieces.length = 0;
    let offset = 0;
    while (offset < data.length && this.state !== State.Done) offset = this.step(data, offset);
    this.flushData(data);
    if (this.state !== State.Done) return;
    if (offset < data.length) {
      throw new ResponseParseError('unexpected-data', `${data.length - offset} bytes after the end of the response`);
    }
    this.complete(this.keepAlive);
  }

  /** The connection ended: completes a body that runs to the close, else throws if a response was cut short. */
  end(): void {
    if (this.state === State.UntilClose) this.complete(false);
    else if (this.state !== State.Idle) {
      throw new ConnectionClosedError('the connection closed before the response ended');
    }
  }

  private step(data: Buffer, offset: number): number {
    switch (this.state) {
      case State.Head:
        return this.head(data, offset);
      case State.Length: {
        const next = this.bodyBytes(data, offset);
        if (this.remaining === 0) this.state = State.Done;
        return next;
      }
      case State.ChunkSize:
        return this.chunkSize(data, offset);
      case State.ChunkData: {
        const next = this.bodyBytes(data, offset);
        if (this.remaining === 0) this.state = State.ChunkDataEnd;
        return next;
      }
      case State.ChunkDataEnd:
        return this.chunkDataEnd(data, offset);
      case State.Trailers:
        return this.trailers(data, offset);
      case State.UntilClose:
        this.emitData(offset, data.length);
        return data.length;
      default:
        throw new Error(`push() in state ${this.state}`);
    }
  }

  /** Hands on up to `remaining` bytes of body (or of a chunk) from `offset`; returns the offset after them. */
  private bodyBytes(data: Buffer, offset: number): number {
    const take = Math.min(this.remaining, data.length - offset);
    this.remaining -= take;
    this.emitData(offset, offset + take);
    return offset + take;
  }

  private emitData(from: number, to: number): void {
    if (to > from) this.pieces.push(from, to);
  }

  // One chunk per push, however many pieces of body it held: an answer in 1-byte chunks would otherwise cost a Buffer
  // object per byte downstream, and a sink call per piece. One piece is handed on without a copy.
  private flushData(data: Buffer): void {
    const pieces = this.pieces;
    if (pieces.length === 0) return;
    let chunk: Buffer;
    if (pieces.length === 2) {
      const from = pieces[0] as number;
      const to = pieces[1] as number;
      chunk = from === 0 && to === data.length ? data : data.subarray(from, to);
    } else {
      let total = 0;
      for (let i = 0; i < pieces.length; i += 2) total += (pieces[i + 1] as number) - (pieces[i] as number);
      chunk = Buffer.allocUnsafe(total);
      let at = 0;
      for (let i = 0; i < pieces.length; i += 2) {
        const from = pieces[i] as number;
        const to = pieces[i + 1] as number;
        // A native copy costs more than a loop for a few bytes.
        if (to - from > 32) at += data.copy(chunk, at, from, to);
        else for (let b = from; b < to; b++) chunk[at++] = data[b] as number;
      }
    }
    pieces.length = 0;
    this.sink?.onData(chunk);
  }

  private complete(keepAlive: boolean): void {
    const sink = this.sink;
    this.state = State.Idle;
    this.sink = undefined;
    this.pending = undefined;
    sink?.onEnd(keepAlive);
  }

  /**
   * Appends to `pending`, finds `delimiter` in it; returns the text before it and the offset after it in `data`.
   * More than `limit` bytes before the delimiter is a `failure`.
   */
  private takeUntil(data: Buffer, offset: number, delimiter: Buffer, limit: number, failure: ParseFailure) {
    const before = this.pending?.length ?? 0;
    const joined = this.pending ? Buffer.concat([this.pending, data.subarray(offset)]) : data.subarray(offset);
    // A delimiter split across pushes starts up to delimiter.length - 1 bytes back in what was kept.
    const at = joined.indexOf(delimiter, Math.max(0, before - delimiter.length + 1));
    if (at < 0 ? joined.length > limit + delimiter.length - 1 : at > limit) {
      throw new ResponseParseError(failure, `${DESCRIPTION[failure]} longer than ${limit} bytes`);
    }
    if (at < 0) {
      this.pending = Buffer.from(joined);
      return undefined;
    }
    this.pending = undefined;
    return { text: joined.toString('latin1', 0, at), next: offset + at + delimiter.length - before };
  }

  private head(data: Buffer, offset: number): number {
    const found = this.takeUntil(data, offset, HEAD_END, MAX_HEAD_BYTES, 'head-too-large');
    if (!found) return data.length;
    const head = parseHead(found.text);
    // 1xx answers (100 Continue, 103 Early Hints) precede the real one; 101 would switch protocols, never asked for.
    if (head.statusCode < 200) {
      if (head.statusCode === 101)
        throw new ResponseParseError('switching-protocols', 'unexpected 101 Switching Protocols');
      return found.next;
    }
    const framing = framingOf(this.method, head);
    this.keepAlive = keepAliveOf(head, framing);
    this.sink?.onHead({ statusCode: head.statusCode, headers: head.headers });
    if (framing.kind === 'none' || (framing.kind === 'length' && framing.length === 0)) this.state = State.Done;
    else if (framing.kind === 'length') {
      this.remaining = framing.length;
      this.state = State.Length;
    } else this.state = framing.kind === 'chunked' ? State.ChunkSize : State.UntilClose;
    return found.next;
  }

  private chunkSize(data: Buffer, offset: number): number {
    const next = this.pending === undefined ? this.plainChunkSize(data, offset) : -1;
    if (next >= 0) return next;
    const found = this.takeUntil(data, offset, CRLF, MAX_CHUNK_SIZE_LINE, 'chunk-size');
    if (!found) return data.length;
    const digits = CHUNK_SIZE.exec(found.text)?.[0];
    const size = digits?.replace(/^0+(?=.)/, '');
    if (digits === undefined || size === undefined || size.length > MAX_CHUNK_SIZE_DIGITS) {
      throw new ResponseParseError(
        'chunk-size',
        `malformed chunk size line ${JSON.stringify(found.text.slice(0, 80))}`,
      );
    }
    if (!CHUNK_EXT.test(found.text.slice(digits.length))) {
      throw new ResponseParseError(
        'chunk-extension',
        `malformed chunk extension ${JSON.stringify(found.text.slice(0, 80))}`,
      );
    }
    this.startChunk(parseInt(size, 16));
    return found.next;
  }

  /**
   * A chunk-size line that is whole in `data` at `offset` and nothing but 1-13 hex digits and CRLF (the line every
   * server sends) starts its chunk here; returns the offset after it, or -1 for anything else (an extension, a line
   * cut by the end of the read, an error), which the general path reads and judges. Saves a string, three regular
   * expressions and two Buffer views per chunk.
   */
  private plainChunkSize(data: Buffer, offset: number): number {
    const end = Math.min(data.length, offset + MAX_CHUNK_SIZE_DIGITS);
    let size = 0;
    let at = offset;
    for (; at < end; at++) {
      const digit = HEX_VALUE[data[at] as number] as number;
      if (digit < 0) break;
      size = size * 16 + digit;
    }
    if (at === offset || data[at] !== CR_BYTE || data[at + 1] !== LF_BYTE) return -1;
    this.startChunk(size);
    return at + 2;
  }

  private startChunk(size: number): void {
    this.remaining = size;
    if (size === 0) {
      this.state = State.Trailers;
      this.trailerBytes = 0;
    } else this.state = State.ChunkData;
  }

  private chunkDataEnd(data: Buffer, offset: number): number {
    if (this.pending === undefined && data[offset] === CR_BYTE && data[offset + 1] === LF_BYTE) {
      this.state = State.ChunkSize;
      return offset + 2;
    }
    const found = this.takeUntil(data, offset, CRLF, 0, 'chunk-data');
    if (!found) return data.length;
    this.state = State.ChunkSize;
    return found.next;
  }

  /** Trailer fields, checked as header fields and dropped, until the empty line that ends a chunked body. */
  private trailers(data: Buffer, offset: number): number {
    const limit = MAX_TRAILER_BYTES - this.trailerBytes;
    const found = this.takeUntil(data, offset, CRLF, limit, 'trailer-too-large');
    if (!found) return data.length;
    if (found.text === '') {
      this.state = State.Done;
    } else {
      this.trailerBytes += found.text.length + 2;
      addField(Object.create(null) as Record<string, string>, found.text);
    }
    return found.next;
  }
}

const CR_BYTE = 0x0d;
const LF_BYTE = 0x0a;
/** Hex digit values by byte, -1 for any other byte. */
const HEX_VALUE = Int8Array.from({ length: 256 }, (_, b) => {
  const c = String.fromCharCode(b);
  return /[0-9a-fA-F]/.test(c) ? parseInt(c, 16) : -1;
});

const DESCRIPTION: Partial<Record<ParseFailure, string>> = {
  'head-too-large': 'response head',
  'chunk-size': 'chunk size line',
  'chunk-data': 'chunk data',
  'trailer-too-large': 'trailer section',
};
