// The errors of the HTTP/1.1 client, one class per cause, each with a code of the HTTP1_ family. Socket and TLS
// errors (ECONNREFUSED, ECONNRESET, CERT_HAS_EXPIRED) are passed on as Node raises them.

export const Http1ErrorCode = {
  /** The server's bytes are not a response this client can frame unambiguously (see ParseFailure). */
  ParseError: 'HTTP1_PARSE_ERROR',
  /** The connection closed (or was closed) before the answer ended. */
  ConnectionClosed: 'HTTP1_CONNECTION_CLOSED',
  ConnectTimeout: 'HTTP1_CONNECT_TIMEOUT',
  HeadersTimeout: 'HTTP1_HEADERS_TIMEOUT',
  BodyTimeout: 'HTTP1_BODY_TIMEOUT',
  /** The pool was closed or destroyed. */
  PoolClosed: 'HTTP1_POOL_CLOSED',
  /** The request cannot be written as given (a method, path or header that would break its head). */
  InvalidRequest: 'HTTP1_INVALID_REQUEST',
} as const;
export type Http1ErrorCode = (typeof Http1ErrorCode)[keyof typeof Http1ErrorCode];

export abstract class Http1Error extends Error {
  abstract readonly code: Http1ErrorCode;
}

/** Why a response was refused; stable keys for callers, tests and the fuzzer's allow-list. */
export type ParseFailure =
  | 'status-line'
  | 'leading-empty-line'
  | 'http-version'
  | 'status-code'
  | 'reason-phrase'
  | 'header-line'
  | 'field-value'
  | 'head-too-large'
  | 'content-length'
  | 'content-length-with-transfer-encoding'
  | 'transfer-coding'
  | 'chunk-size'
  | 'chunk-extension'
  | 'chunk-data'
  | 'trailer-too-large'
  | 'switching-protocols'
  | 'unexpected-data';

export class ResponseParseError extends Http1Error {
  override readonly name = 'ResponseParseError';
  readonly code = Http1ErrorCode.ParseError;
  readonly reason: ParseFailure;

  constructor(reason: ParseFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export class ConnectionClosedError extends Http1Error {
  override readonly name = 'ConnectionClosedError';
  readonly code = Http1ErrorCode.ConnectionClosed;
}

export class ConnectTimeoutError extends Http1Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = Http1ErrorCode.ConnectTimeout;
}

export class HeadersTimeoutError extends Http1Error {
  override readonly name = 'HeadersTimeoutError';
  readonly code = Http1ErrorCode.HeadersTimeout;
}

export class BodyTimeoutError extends Http1Error {
  override readonly name = 'BodyTimeoutError';
  readonly code = Http1ErrorCode.BodyTimeout;
}

export class PoolClosedError extends Http1Error {
  override readonly name = 'PoolClosedError';
  readonly code = Http1ErrorCode.PoolClosed;
}

export class InvalidRequestError extends Http1Error {
  override readonly name = 'InvalidRequestError';
  readonly code = Http1ErrorCode.InvalidRequest;
}
