// Keep-alive HTTP/1.1 connections to one origin, for the kube client and the plugin HTTP broker. A request waits in
// line for a free connection (at most `connections` open), goes out in one write and its answer is collected whole.
// undici does the same job with far more machinery per exchange (a dispatch handler chain, llhttp called through Wasm
// for every header, a write path built for streaming bodies), and a node initialization makes three requests:
// bench/host/http1-client.ts measures the CPU per request of this pool against undici's.
//
// Timeouts (the wait for the head, then each pause in the body) are checked by one sweep every
// TIMEOUT_RESOLUTION_MS, not a timer per request. A request whose reused connection closes before any byte of an
// answer arrived is sent once more on a new connection when it is safe to repeat (GET, HEAD, OPTIONS), as Go's
// transport does: the server may have closed the idle connection as the request went out. A request that received
// bytes (even ones refused) is never sent again.
import type { ConnectionOptions } from 'node:tls';
import { BodyCollector, type CollectedResponse, type CollectOptions } from '../collect.ts';
import { type Endpoint, Http1Connection } from './connection.ts';
import { BodyTimeoutError, Http1ErrorCode, HeadersTimeoutError, PoolClosedError } from './errors.ts';
import { CONNECT_TIMEOUT_MS, connectTimeoutError, type PoolRequest, serializeRequest } from './request.ts';
import type { ResponseHead } from './response-parser.ts';
import { openStream, type StreamedResponse } from './stream.ts';

/** How one exchange is made and collected. */
export interface ExchangeOptions extends CollectOptions {
  /**
   * Called synchronously right before the request's bytes are written to a connected socket (again if it is sent
   * once more): an Error refuses the request, which fails with it and writes nothing. For a check whose answer may
   * change while the request waits for a connection (a leader's lease).
   */
  beforeWrite?: () => Error | undefined;
}

export interface PoolOptions {
  /** Connections open at once; more requests wait for one (default 10). */
  connections?: number;
  /** TLS settings for an https origin. */
  tls?: ConnectionOptions;
  /** An idle connection is closed after this long (default 30 s; client-go's is 90 s, undici's 4 s). */
  idleTimeoutMs?: number;
}

const DEFAULT_CONNECTIONS = 10;
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 300_000;
const TIMEOUT_RESOLUTION_MS = 250;
const REPLAYABLE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The failures of a reused connection that mean the server closed it, idle, as the request went out. */
const CLOSED_IDLE = new Set<string>([Http1ErrorCode.ConnectionClosed, 'ECONNRESET', 'EPIPE']);

interface Exchange {
  request: PoolRequest;
  options: ExchangeOptions;
  wire: string | Buffer;
  resolve: (r: CollectedResponse) => void;
  reject: (e: Error) => void;
  /** performance.now() after which the exchange times out; Infinity while it waits for a connection. */
  deadline: number;
  /** performance.now() by which its connection must be established. */
  connectDeadline: number;
  timeoutError: () => Error;
  connection: Http1Connection | undefined;
  retried: boolean;
  done: boolean;
  onAbort: (() => void) | undefined;
}

function endpointOf(url: URL, tls: ConnectionOptions | undefined): Endpoint {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  // URL keeps IPv6 addresses in brackets; sockets want them bare.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { protocol: url.protocol as Endpoint['protocol'], hostname, port, ...(tls ? { tls } : {}) };
}

/** Whether `err` on `connection` is the close of an idle connection, before any answer, to a repeatable request. */
const closedIdle = (connection: Http1Connection, err: Error, method: string): boolean =>
  REPLAYABLE.has(method) && !connection.hasAnswerBytes && CLOSED_IDLE.has((err as NodeJS.ErrnoException).code ?? '');

const headersTimeoutError = (request: PoolRequest): Error =>
  new HeadersTimeoutError(
    `headers timeout: no response to ${request.method} within ${request.headersTimeoutMs ?? DEFAULT_TIMEOUT_MS} ms`,
  );

export class Http1Pool {
  private readonly endpoint: Endpoint;
  private readonly hostHeader: string;
  private readonly maxConnections: number;
  private readonly idleTimeoutMs: number;
  private readonly idle: Http1Connection[] = [];
  private readonly all = new Set<Http1Connection>();
  private readonly queue: Exchange[] = [];
  private readonly active = new Map<Http1Connection, Exchange>();
  private sweep: NodeJS.Timeout | undefined;
  private closing: PromiseWithResolvers<void> | undefined;

  constructor(origin: string, options: PoolOptions = {}) {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`unsupported protocol ${url.protocol} in ${origin}`);
    }
    this.endpoint = endpointOf(url, options.tls);
    this.hostHeader = url.host;
    this.maxConnections = options.connections ?? DEFAULT_CONNECTIONS;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    if (!(this.maxConnections >= 1)) throw new RangeError('connections must be at least 1');
  }

  /** Sends `request` and collects its answer. Rejects on transport errors, timeouts, aborts and a closed pool. */
  exchange(request: PoolRequest, options: ExchangeOptions = {}): Promise<CollectedResponse> {
    return new Promise<CollectedResponse>((resolve, reject) => {
      const { signal } = options;
      const abortError = (): Error => options.onAbort?.() ?? (signal?.reason as Error);
      if (signal?.aborted) return reject(abortError());
      if (this.closing) return reject(new PoolClosedError('the connection pool is closed'));
      let wire: string | Buffer;
      try {
        wire = serializeRequest(request, this.hostHeader);
      } catch (err) {
        return reject(err as Error);
      }
      const exchange: Exchange = {
        request,
        options,
        wire,
        resolve,
        reject,
        deadline: Infinity,
        connectDeadline: Infinity,
        timeoutError: () => headersTimeoutError(request),
        connection: undefined,
        retried: false,
        done: false,
        onAbort: undefined,
      };
      if (signal) {
        exchange.onAbort = () => this.fail(exchange, abortError());
        signal.addEventListener('abort', exchange.onAbort, { once: true });
      }
      this.queue.push(exchange);
      this.dispatch();
    });
  }

  /**
   * Sends `request` on a connection of its own and resolves once the answer's head arrived, its body to be read as
   * it comes (a watch). The pool's limit and close() do not apply to it.
   */
  stream(request: PoolRequest, signal?: AbortSignal): Promise<StreamedResponse> {
    return openStream(this.endpoint, this.hostHeader, request, signal);
  }

  /** Stops taking requests; resolves when the requests already taken have ended and every connection is closed. */
  close(): Promise<void> {
    if (!this.closing) {
      this.closing = Promise.withResolvers<void>();
      this.closeIdle(() => true);
      this.maybeClosed();
    }
    return this.closing.promise;
  }

  /** Closes every connection at once, failing what is in flight or waiting. */
  destroy(err: Error = new PoolClosedError('the connection pool was destroyed')): void {
    void this.close();
    for (const exchange of [...this.queue, ...this.active.values()]) this.fail(exchange, err);
    for (const c of [...this.all]) c.destroy(err);
  }

  /** Open connections, idle ones, exchanges in flight and waiting (tests, metrics). */
  stats(): { connections: number; idle: number; active: number; queued: number } {
    return { connections: this.all.size, idle: this.idle.length, active: this.active.size, queued: this.queue.length };
  }

  /** Hands waiting exchanges to idle connections, opening new ones while under the limit. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let connection = this.idle.pop();
      if (!connection) {
        if (this.all.size >= this.maxConnections) return;
        connection = this.open();
      }
      const exchange = this.queue.shift() as Exchange;
      this.start(exchange, connection);
    }
  }

  private open(): Http1Connection {
    const c = new Http1Connection(
      this.endpoint,
      (free) => this.onFree(free),
      (gone) => this.onClose(gone),
    );
    this.all.add(c);
    return c;
  }

  private start(exchange: Exchange, connection: Http1Connection): void {
    const { request, options } = exchange;
    const now = performance.now();
    const headersTimeout = request.headersTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const bodyTimeout = request.bodyTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = options.maxBytes ?? Infinity;
    const discard = options.discardBody === true;
    const reused = connection.completed > 0;
    exchange.connection = connection;
    exchange.deadline = headersTimeout > 0 ? now + headersTimeout : Infinity;
    exchange.connectDeadline = connection.isConnected ? Infinity : now + CONNECT_TIMEOUT_MS;
    this.active.set(connection, exchange);
    this.ensureSweep();
    let statusCode = 0;
    let headers: ResponseHead['headers'] = {};
    const body = new BodyCollector();
    let received = 0;
    connection.send(request.method, exchange.wire, {
      beforeWrite: options.beforeWrite,
      onHead: (head) => {
        statusCode = head.statusCode;
        headers = head.headers;
        exchange.deadline = bodyTimeout > 0 ? performance.now() + bodyTimeout : Infinity;
        exchange.timeoutError = () =>
          new BodyTimeoutError(`body timeout: the response body stalled for ${bodyTimeout} ms`);
      },
      onData: (chunk) => {
        received += chunk.length;
        if (received > maxBytes) {
          const err = options.tooLarge?.(maxBytes) ?? new Error(`response larger than ${maxBytes} bytes`);
          this.fail(exchange, err);
          return;
        }
        if (bodyTimeout > 0) exchange.deadline = performance.now() + bodyTimeout;
        // The socket's buffer is not reused, so a chunk may be kept without a copy (BodyCollector copies small ones).
        if (!discard || statusCode >= 300) body.add(chunk);
      },
      onEnd: () => {
        this.active.delete(connection);
        this.settle(exchange);
        exchange.resolve({ statusCode, headers, chunks: body.finish() });
      },
      onError: (err) => {
        this.active.delete(connection);
        if (exchange.done) return;
        if (reused && !exchange.retried && !this.closing && closedIdle(connection, err, request.method)) {
          exchange.retried = true;
          exchange.connection = undefined;
          exchange.deadline = Infinity;
          exchange.timeoutError = () => headersTimeoutError(request);
          this.queue.unshift(exchange);
          this.dispatch();
          return;
        }
        this.fail(exchange, err);
      },
    });
  }

  private settle(exchange: Exchange): void {
    exchange.done = true;
    if (exchange.onAbort) exchange.options.signal?.removeEventListener('abort', exchange.onAbort);
  }

  /** Ends `exchange` with `err`; a connection it was using is destroyed (its answer is unread or unwanted). */
  private fail(exchange: Exchange, err: Error): void {
    if (exchange.done) return;
    this.settle(exchange);
    const queued = this.queue.indexOf(exchange);
    if (queued >= 0) this.queue.splice(queued, 1);
    const connection = exchange.connection;
    if (connection) {
      this.active.delete(connection);
      connection.destroy(err);
    }
    exchange.reject(err);
  }

  private onFree(connection: Http1Connection): void {
    if (this.closing) {
      connection.destroy();
      return;
    }
    connection.idleSince = performance.now();
    this.idle.push(connection);
    this.dispatch();
  }

  private onClose(connection: Http1Connection): void {
    this.all.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    // An exchange it carried has already heard why (the connection reports a failure before it closes).
    // A closed connection frees a place for a request that waits.
    this.dispatch();
    this.maybeClosed();
  }

  private closeIdle(which: (c: Http1Connection) => boolean): void {
    for (const c of this.idle.filter(which)) c.destroy();
  }

  private maybeClosed(): void {
    if (this.closing && this.all.size === 0 && this.queue.length === 0) this.closing.resolve();
  }

  /** One timer for the pool's timeouts and idle connections; it stops when there is nothing to watch. */
  private ensureSweep(): void {
    if (this.sweep) return;
    this.sweep = setInterval(() => this.onSweep(), TIMEOUT_RESOLUTION_MS);
    this.sweep.unref();
  }

  private onSweep(): void {
    const now = performance.now();
    for (const exchange of [...this.active.values()]) {
      if (now >= exchange.deadline) this.fail(exchange, exchange.timeoutError());
      else if (now >= exchange.connectDeadline && exchange.connection?.isConnected === false) {
        this.fail(exchange, connectTimeoutError(this.hostHeader));
      }
    }
    this.closeIdle((c) => now - c.idleSince >= this.idleTimeoutMs);
    if (this.all.size === 0 && this.sweep) {
      clearInterval(this.sweep);
      this.sweep = undefined;
    }
  }
}
