// A response read as it arrives, on a connection of its own (a watch: one request, then events for minutes). The
// body is an async iterable of the chunks the socket delivers; leaving the iteration early, aborting the signal or
// any failure closes the connection. Not pooled: a watch's connection would otherwise hold a place that requests
// need, and is closed when the watch ends.
import { type Endpoint, Http1Connection } from './connection.ts';
import { ConnectionClosedError, HeadersTimeoutError } from './errors.ts';
import { CONNECT_TIMEOUT_MS, connectTimeoutError, type PoolRequest, serializeRequest } from './request.ts';
import type { ResponseHeaders } from './response-parser.ts';

export interface StreamedResponse {
  statusCode: number;
  headers: ResponseHeaders;
  /** The body's chunks as they arrive; ends with the response, throws if the connection fails first. */
  body: AsyncIterable<Uint8Array>;
}

/** Bytes read but not yet taken past which the socket stops reading (the server then waits). */
const HIGH_WATER_BYTES = 1024 * 1024;

/** Sends `request` on a new connection to `endpoint`; resolves once the answer's head has arrived. */
export function openStream(
  endpoint: Endpoint,
  hostHeader: string,
  request: PoolRequest,
  signal?: AbortSignal,
): Promise<StreamedResponse> {
  return new Promise<StreamedResponse>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    let wire: string | Buffer;
    try {
      wire = serializeRequest(request, hostHeader);
    } catch (err) {
      return reject(err as Error);
    }
    let body: ChunkQueue | undefined;
    // A stream's connection is never reused: it is closed when the answer ends (onEnd below).
    const connection = new Http1Connection(
      endpoint,
      () => undefined,
      () => undefined,
    );
    const fail = (err: Error): void => {
      cleanup();
      if (body) body.fail(err);
      else reject(err);
    };
    const onAbort = (): void => connection.destroy(signal?.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
    const connectTimer = setTimeout(() => {
      if (!connection.isConnected) connection.destroy(connectTimeoutError(hostHeader));
    }, CONNECT_TIMEOUT_MS);
    const headersTimeoutMs = request.headersTimeoutMs ?? 0;
    const headTimer =
      headersTimeoutMs > 0
        ? setTimeout(
            () =>
              connection.destroy(new HeadersTimeoutError(`headers timeout: no response within ${headersTimeoutMs} ms`)),
            headersTimeoutMs,
          )
        : undefined;
    const cleanup = (): void => {
      clearTimeout(connectTimer);
      clearTimeout(headTimer);
      signal?.removeEventListener('abort', onAbort);
    };
    connection.send(request.method, wire, {
      onHead: (head) => {
        clearTimeout(connectTimer);
        clearTimeout(headTimer);
        body = new ChunkQueue(connection);
        resolve({ statusCode: head.statusCode, headers: head.headers, body });
      },
      onData: (chunk) => body?.push(chunk),
      onEnd: () => {
        cleanup();
        body?.end();
        connection.destroy();
      },
      onError: fail,
    });
  });
}

/** The chunks of one response, handed to one reader. */
class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly chunks: Buffer[] = [];
  private queuedBytes = 0;
  private done = false;
  private error: Error | undefined;
  private waiting: ((result: IteratorResult<Uint8Array>) => void) | undefined;
  private waitingFail: ((err: Error) => void) | undefined;
  private readonly connection: Http1Connection;

  constructor(connection: Http1Connection) {
    this.connection = connection;
  }

  push(chunk: Buffer): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.clearWaiter();
      resolve({ value: chunk, done: false });
      return;
    }
    this.chunks.push(chunk);
    this.queuedBytes += chunk.length;
    if (this.queuedBytes > HIGH_WATER_BYTES) this.connection.socket.pause();
  }

  end(): void {
    this.done = true;
    if (this.waiting && this.chunks.length === 0) {
      const resolve = this.waiting;
      this.clearWaiter();
      resolve({ value: undefined, done: true });
    }
  }

  fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.error = err;
    if (this.waitingFail) {
      const reject = this.waitingFail;
      this.clearWaiter();
      reject(err);
    }
  }

  private clearWaiter(): void {
    this.waiting = undefined;
    this.waitingFail = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: () => {
        const chunk = this.chunks.shift();
        if (chunk) {
          this.queuedBytes -= chunk.length;
          if (this.queuedBytes <= HIGH_WATER_BYTES / 2 && this.connection.socket.isPaused()) {
            this.connection.socket.resume();
          }
          return Promise.resolve({ value: chunk, done: false });
        }
        if (this.error) return Promise.reject(this.error);
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
          this.waiting = resolve;
          this.waitingFail = reject;
        });
      },
      // The reader stopped early (break, return, throw): nobody wants the rest.
      return: () => {
        this.done = true;
        this.chunks.length = 0;
        this.connection.destroy(new ConnectionClosedError('the reader stopped'));
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
