// One keep-alive HTTP/1.1 connection that carries one exchange at a time: the request goes out in one write, the
// answer comes back through a ResponseParser. Any failure (socket error, a close mid-answer, bytes the parser
// refuses, a timeout, an abort) destroys the connection: it is never reused in a state it cannot vouch for.
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { ConnectionClosedError } from './errors.ts';
import { type ResponseHead, ResponseParser, type ResponseSink } from './response-parser.ts';

export interface Endpoint {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
  /** TLS options (CA, client certificate, servername, rejectUnauthorized) for https. */
  tls?: ConnectionOptions;
}

/** What the connection reports about the exchange it carries. */
export interface ExchangeSink extends ResponseSink {
  onError(err: Error): void;
  /**
   * Asked right before the request is written: an error fails the exchange and nothing is written. With it, the
   * write waits for the connection to be established; without it the socket buffers the bytes until it connects.
   */
  beforeWrite?: (() => Error | undefined) | undefined;
}

const TCP_KEEPALIVE_MS = 30_000;

export class Http1Connection {
  readonly socket: Socket;
  private readonly parser = new ResponseParser();
  /** The socket's event once it can carry a request: 'connect', or 'secureConnect' after the TLS handshake. */
  private readonly connectEvent: 'connect' | 'secureConnect';
  private sink: ExchangeSink | undefined;
  private connected = false;
  private closed = false;
  private answered = false;
  /** Exchanges this connection has completed. */
  completed = 0;
  /** When it last became idle (clock ms). */
  idleSince = 0;

  /** `onFree`: the exchange ended and the connection can take another; `onClose`: it is gone. */
  private readonly onFree: (c: Http1Connection) => void;
  private readonly onClose: (c: Http1Connection) => void;

  constructor(endpoint: Endpoint, onFree: (c: Http1Connection) => void, onClose: (c: Http1Connection) => void) {
    this.onFree = onFree;
    this.onClose = onClose;
    const common = { host: endpoint.hostname, port: endpoint.port };
    if (endpoint.protocol === 'https:') {
      // A servername that is an IP address is refused by Node (and means nothing to SNI).
      const servername = endpoint.tls?.servername ?? (isIP(endpoint.hostname) ? undefined : endpoint.hostname);
      this.socket = tlsConnect({
        ...endpoint.tls,
        ...common,
        ...(servername !== undefined ? { servername } : {}),
        ALPNProtocols: ['http/1.1'],
      });
      this.connectEvent = 'secureConnect';
      this.socket.once('secureConnect', () => (this.connected = true));
    } else {
      this.connectEvent = 'connect';
      this.socket = netConnect(common);
      this.socket.once('connect', () => (this.connected = true));
    }
    this.socket.setNoDelay(true);
    this.socket.setKeepAlive(true, TCP_KEEPALIVE_MS);
    this.socket.on('data', (data: Buffer) => this.onData(data));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new ConnectionClosedError('the connection closed')));
  }

  get isConnected(): boolean {
    return this.connected;
  }

  /** Whether any byte of an answer arrived since the last send(). */
  get hasAnswerBytes(): boolean {
    return this.answered;
  }

  /** Writes the request (head and body in one write) and reports the answer to `sink`. */
  send(method: string, request: string | Buffer, sink: ExchangeSink): void {
    if (this.closed || this.sink) throw new Error('connection not available');
    this.sink = sink;
    this.answered = false;
    this.socket.ref();
    this.parser.expect(method, {
      onHead: (head: ResponseHead) => this.sink?.onHead(head),
      onData: (chunk) => this.sink?.onData(chunk),
      onEnd: (keepAlive) => this.ended(keepAlive),
    });
    const beforeWrite = sink.beforeWrite;
    if (beforeWrite === undefined) this.socket.write(request);
    else if (this.connected) this.checkedWrite(request, beforeWrite, sink);
    else this.socket.once(this.connectEvent, () => this.checkedWrite(request, beforeWrite, sink));
  }

  private checkedWrite(request: string | Buffer, beforeWrite: () => Error | undefined, sink: ExchangeSink): void {
    // The exchange may have ended while the connection was being made (a timeout, an abort).
    if (this.closed || this.sink !== sink) return;
    const refusal = beforeWrite();
    if (refusal === undefined) this.socket.write(request);
    else this.fail(refusal);
  }

  /** Closes the connection, failing the exchange it carries with `err`. */
  destroy(err: Error = new ConnectionClosedError('the connection was closed')): void {
    this.fail(err);
  }

  private ended(keepAlive: boolean): void {
    const sink = this.sink;
    this.sink = undefined;
    this.completed++;
    sink?.onEnd(keepAlive);
    if (!keepAlive) {
      this.close();
    } else if (!this.closed) {
      // An idle connection does not keep the process alive (a tool that made its last request can exit).
      this.socket.unref();
      this.onFree(this);
    }
  }

  // The parser reports the end of a response only after it has consumed `data`, so the next exchange this one's end
  // lets in starts with nothing of this answer left in hand; bytes past the end fail the exchange (ResponseParser).
  private onData(data: Buffer): void {
    this.answered = true;
    try {
      this.parser.push(data);
    } catch (err) {
      this.fail(err as Error);
    }
  }

  private onEnd(): void {
    try {
      this.parser.end();
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    this.close();
  }

  // The exchange hears of the failure before the pool hears of the close, so the cause it reports is this one.
  private fail(err: Error): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.onError(err);
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.onClose(this);
  }
}
