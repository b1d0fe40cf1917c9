// What goes out on an HTTP/1.1 connection.
import { ConnectTimeoutError, InvalidRequestError } from './errors.ts';

export interface PoolRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Readonly<Record<string, string>>;
  /** A string is sent as UTF-8. */
  body?: string | Uint8Array;
  /** Longest wait for the answer's head after the request is sent, and for each piece of its body (default 5 min). */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

/** As undici's: a server that does not complete the TCP and TLS handshakes in this long is taken as unreachable. */
export const CONNECT_TIMEOUT_MS = 10_000;

export function connectTimeoutError(hostHeader: string): ConnectTimeoutError {
  return new ConnectTimeoutError(`connect timeout: ${hostHeader} not reached in ${CONNECT_TIMEOUT_MS} ms`);
}

// Header names and values, methods and paths go into the request as they are: a CR or LF would end the line early.
const UNSAFE = /[\r\n\0]/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The request's bytes: head and body in one piece, so that it goes out in one write. */
export function serializeRequest(request: PoolRequest, hostHeader: string): string | Buffer {
  const { method, path, headers, body } = request;
  if (!TOKEN.test(method)) throw new InvalidRequestError(`invalid method ${JSON.stringify(method)}`);
  if (!path.startsWith('/') || UNSAFE.test(path) || path.includes(' ')) {
    throw new InvalidRequestError(`invalid request path ${JSON.stringify(path)}`);
  }
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${hostHeader}\r\n`;
  for (const name in headers) {
    const value = headers[name] as string;
    const lower = name.toLowerCase();
    // The pool frames the request itself.
    if (lower === 'host' || lower === 'content-length' || lower === 'connection' || lower === 'transfer-encoding') {
      continue;
    }
    if (!TOKEN.test(name) || UNSAFE.test(value)) {
      throw new InvalidRequestError(`invalid header ${JSON.stringify(name)}`);
    }
    head += `${name}: ${value}\r\n`;
  }
  if (typeof body === 'string') return `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  if (body !== undefined) {
    return Buffer.concat([Buffer.from(`${head}content-length: ${body.byteLength}\r\n\r\n`), body]);
  }
  head += method === 'POST' || method === 'PUT' || method === 'PATCH' ? 'content-length: 0\r\n\r\n' : '\r\n';
  return head;
}
