// An incremental HTTP/1.1 response parser (RFC 9112) for a client that sends one request at a time on a
// connection: bytes go in as the socket delivers them, the head and the body's pieces come out. It frames the body
// by Transfer-Encoding: chunked, then Content-Length, then the end of the connection, and knows which answers have
// none (HEAD, 1xx, 204, 304). Anything it cannot frame unambiguously is a ResponseParseError: the connection is then
// unusable, as a parser that guessed would hand the next request the rest of this answer.

export type ResponseHeaders = Record<string, string | string[]>;

export interface ResponseHead {
  statusCode: number;
  /** Lower-case names; a repeated header is an array of its values in order. */
  headers: ResponseHeaders;
}

export interface ResponseSink {
  onHead(head: ResponseHead): void;
  onData(chunk: Buffer): void;
  /** The response is complete; `keepAlive`: the connection may carry the next request. */
  onEnd(keepAlive: boolean): void;
}

export class ResponseParseError extends Error {
  override readonly name = 'ResponseParseError';
}

/** Longest status line plus headers accepted (Go's servers send a few hundred bytes). */
export const MAX_HEAD_BYTES = 64 * 1024;
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
} as const;
type State = (typeof State)[keyof typeof State];

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

export class ResponseParser {
  private state: State = State.Idle;
  private sink: ResponseSink | undefined;
  private expectBody = true;
  /** Bytes of an incomplete head, chunk-size line or trailer section. */
  private pending: Buffer | undefined;
  private remaining = 0;
  private keepAlive = true;

  /** The parser waits for the answer to a request; `method` decides whether the answer can have a body. */
  expect(method: string, sink: ResponseSink): void {
    if (this.state !== State.Idle) throw new Error('a response is still being parsed');
    this.state = State.Head;
    this.sink = sink;
    this.expectBody = method !== 'HEAD';
    this.pending = undefined;
  }

  /** True while a response has been asked for and has not ended. */
  get busy(): boolean {
    return this.state !== State.Idle;
  }

  /** Feeds bytes from the connection. Throws ResponseParseError for bytes that are not a valid answer. */
  push(data: Buffer): void {
    let offset = 0;
    while (offset < data.length) {
      switch (this.state) {
        case State.Idle:
          throw new ResponseParseError('data arrived with no request outstanding');
        case State.Head:
          offset = this.head(data, offset);
          break;
        case State.Length:
          offset = this.bodyBytes(data, offset);
          if (this.remaining === 0) this.finish();
          break;
        case State.ChunkSize:
          offset = this.chunkSize(data, offset);
          break;
        case State.ChunkData:
          offset = this.bodyBytes(data, offset);
          if (this.remaining === 0) this.state = State.ChunkDataEnd;
          break;
        case State.ChunkDataEnd:
          offset = this.chunkDataEnd(data, offset);
          break;
        case State.Trailers:
          offset = this.trailers(data, offset);
          break;
        case State.UntilClose:
          this.emitData(data, offset, data.length);
          offset = data.length;
          break;
      }
    }
  }

  /** The connection ended: completes a body that runs to the close, else throws if a response was cut short. */
  end(): void {
    if (this.state === State.UntilClose) {
      this.finish(false);
      return;
    }
    if (this.state !== State.Idle) throw new ResponseParseError('the connection closed before the response ended');
  }

  /** Hands on up to `remaining` bytes of body (or of a chunk) from `offset`; returns the offset after them. */
  private bodyBytes(data: Buffer, offset: number): number {
    const take = Math.min(this.remaining, data.length - offset);
    this.remaining -= take;
    this.emitData(data, offset, offset + take);
    return offset + take;
  }

  private emitData(data: Buffer, from: number, to: number): void {
    if (to > from) this.sink?.onData(from === 0 && to === data.length ? data : data.subarray(from, to));
  }

  private finish(keepAlive = this.keepAlive): void {
    const sink = this.sink;
    this.state = State.Idle;
    this.sink = undefined;
    this.pending = undefined;
    sink?.onEnd(keepAlive);
  }

  /** Appends to `pending` up to `limit` bytes, finds `delimiter` in it; returns [line, offset after it in data]. */
  private takeUntil(data: Buffer, offset: number, delimiter: Buffer, limit: number, what: string) {
    const before = this.pending?.length ?? 0;
    const joined = this.pending ? Buffer.concat([this.pending, data.subarray(offset)]) : data.subarray(offset);
    // A delimiter split across pushes starts up to delimiter.length - 1 bytes back in what was kept.
    const at = joined.indexOf(delimiter, Math.max(0, before - delimiter.length + 1));
    if (at < 0) {
      if (joined.length > limit) throw new ResponseParseError(`${what} longer than ${limit} bytes`);
      this.pending = Buffer.from(joined);
      return undefined;
    }
    if (at > limit) throw new ResponseParseError(`${what} longer than ${limit} bytes`);
    this.pending = undefined;
    return { text: joined.toString('latin1', 0, at), next: offset + at + delimiter.length - before };
  }

  private head(data: Buffer, offset: number): number {
    const found = this.takeUntil(data, offset, HEAD_END, MAX_HEAD_BYTES, 'response head');
    if (!found) return data.length;
    const lines = found.text.split('\r\n');
    const status = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: .*)?$/.exec(lines[0] ?? '');
    if (!status) throw new ResponseParseError(`malformed status line ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
    const statusCode = Number(status[2]);
    const headers: ResponseHeaders = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(line.slice(0, colon))) {
        throw new ResponseParseError(`malformed header line ${JSON.stringify(line.slice(0, 80))}`);
      }
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      const prior = headers[name];
      if (prior === undefined) headers[name] = value;
      else if (Array.isArray(prior)) prior.push(value);
      else headers[name] = [prior, value];
    }
    // 1xx answers (100 Continue, 103 Early Hints) precede the real one; 101 would switch protocols, never asked for.
    if (statusCode < 200) {
      if (statusCode === 101) throw new ResponseParseError('unexpected 101 Switching Protocols');
      return found.next;
    }
    this.keepAlive = keepAliveOf(status[1] === '1', headers.connection);
    this.sink?.onHead({ statusCode, headers });
    this.frameBody(statusCode, headers);
    return found.next;
  }

  private frameBody(statusCode: number, headers: ResponseHeaders): void {
    if (!this.expectBody || statusCode === 204 || statusCode === 304) {
      this.finish();
      return;
    }
    const te = headers['transfer-encoding'];
    if (te !== undefined) {
      const codings = (Array.isArray(te) ? te.join(',') : te).toLowerCase().split(',');
      if (codings.map((c) => c.trim()).at(-1) !== 'chunked') {
        throw new ResponseParseError(`unsupported transfer-encoding ${JSON.stringify(te)}`);
      }
      this.state = State.ChunkSize;
      return;
    }
    const cl = headers['content-length'];
    if (cl !== undefined) {
      const values = new Set((Array.isArray(cl) ? cl : [cl]).flatMap((v) => v.split(',').map((s) => s.trim())));
      const [only] = values;
      if (values.size !== 1 || only === undefined || !/^\d{1,15}$/.test(only)) {
        throw new ResponseParseError(`invalid content-length ${JSON.stringify(cl)}`);
      }
      this.remaining = Number(only);
      if (this.remaining === 0) this.finish();
      else this.state = State.Length;
      return;
    }
    this.keepAlive = false;
    this.state = State.UntilClose;
  }

  private chunkSize(data: Buffer, offset: number): number {
    const found = this.takeUntil(data, offset, CRLF, MAX_CHUNK_SIZE_LINE, 'chunk size line');
    if (!found) return data.length;
    const size = found.text.split(';', 1)[0]?.trim() ?? '';
    if (!/^[0-9a-fA-F]{1,12}$/.test(size)) throw new ResponseParseError(`malformed chunk size ${JSON.stringify(size)}`);
    this.remaining = parseInt(size, 16);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
    return found.next;
  }

  private chunkDataEnd(data: Buffer, offset: number): number {
    const found = this.takeUntil(data, offset, CRLF, 2, 'chunk terminator');
    if (!found) return data.length;
    if (found.text !== '') throw new ResponseParseError('chunk data longer than its size');
    this.state = State.ChunkSize;
    return found.next;
  }

  /** Trailer fields (ignored) until the empty line that ends a chunked body. */
  private trailers(data: Buffer, offset: number): number {
    const found = this.takeUntil(data, offset, CRLF, MAX_HEAD_BYTES, 'trailer section');
    if (!found) return data.length;
    if (found.text === '') this.finish();
    return found.next;
  }
}

function keepAliveOf(http11: boolean, connection: string | string[] | undefined): boolean {
  const tokens = (Array.isArray(connection) ? connection.join(',') : (connection ?? ''))
    .toLowerCase()
    .split(',')
    .map((t) => t.trim());
  if (tokens.includes('close')) return false;
  return http11 || tokens.includes('keep-alive');
}
