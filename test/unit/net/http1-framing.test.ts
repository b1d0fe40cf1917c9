// RFC 9112 framing and RFC 9110 field syntax as Http1Pool applies them to what a raw TCP server sends: each answer
// is written on a fresh connection, and what the pool resolves (or the reason it refuses) is checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Http1ErrorCode } from '../../../host/src/net/http1/errors.ts';
import { Http1Pool } from '../../../host/src/net/http1/pool.ts';
import { MAX_HEAD_BYTES, MAX_TRAILER_BYTES } from '../../../host/src/net/http1/response-parser.ts';
import { pathOf, rawServer, type RawServer } from './raw-server.ts';

/** Answers by name; an answer ending in the `CLOSE` marker is followed by the server closing the connection. */
const CLOSE = '<close>';
const answers = new Map<string, string>();
let server: RawServer;

beforeAll(async () => {
  server = await rawServer((socket, request) => {
    const text = answers.get(pathOf(request).slice(1)) ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';
    const close = text.endsWith(CLOSE);
    socket.write(Buffer.from(close ? text.slice(0, -CLOSE.length) : text, 'latin1'));
    if (close) socket.end();
  });
});
afterAll(() => server.close());

async function fetchRaw(
  name: string,
  text: string,
  method = 'GET',
): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string; open: number }> {
  answers.set(name, text);
  const pool = new Http1Pool(server.origin);
  try {
    const r = await pool.exchange({ method, path: `/${name}`, headers: {} });
    return {
      statusCode: r.statusCode,
      headers: r.headers,
      body: Buffer.concat(r.chunks).toString('latin1'),
      open: pool.stats().connections,
    };
  } finally {
    pool.destroy();
  }
}

const ok = (headers: string, body = 'ok'): string =>
  `HTTP/1.1 200 OK\r\n${headers}Content-Length: ${body.length}\r\n\r\n${body}`;
const chunked = (headers: string): string => `HTTP/1.1 200 OK\r\n${headers}\r\n2\r\nok\r\n0\r\n\r\n`;

describe('Http1Pool refuses what RFC 9112 / RFC 9110 do not allow, and closes the connection', () => {
  it.each([
    [
      'cl-and-te',
      chunked('Content-Length: 2\r\nTransfer-Encoding: chunked\r\n'),
      'content-length-with-transfer-encoding',
    ],
    ['te-gzip-chunked', chunked('Transfer-Encoding: gzip, chunked\r\n'), 'transfer-coding'],
    ['te-chunked-twice', chunked('Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n'), 'transfer-coding'],
    ['te-identity', `HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\nok${CLOSE}`, 'transfer-coding'],
    ['te-chunked-not-last', `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nok${CLOSE}`, 'transfer-coding'],
    ['nul-in-value', ok('X-A: a\0b\r\n'), 'field-value'],
    ['bare-cr-in-value', ok('X-A: a\rb\r\n'), 'field-value'],
    ['bare-lf-in-value', ok('X-A: a\nb\r\n'), 'field-value'],
    ['del-in-value', ok('X-A: a\x7fb\r\n'), 'field-value'],
    ['ctl-in-value', ok('X-A: a\x01b\r\n'), 'field-value'],
    ['ctl-in-reason', 'HTTP/1.1 200 O\x01K\r\nContent-Length: 0\r\n\r\n', 'reason-phrase'],
    ['status-099', 'HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n', 'status-code'],
    ['status-600', 'HTTP/1.1 600 High\r\nContent-Length: 0\r\n\r\n', 'status-code'],
    ['http-2.0', 'HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n', 'http-version'],
    ['leading-crlf', '\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', 'leading-empty-line'],
    ['te-empty-element', chunked('Transfer-Encoding: chunked,\r\n'), 'transfer-coding'],
    ['space-before-colon', ok('X-A : b\r\n'), 'header-line'],
    ['obs-fold', ok('X-A: a\r\n b\r\n'), 'header-line'],
    ['two-content-lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok', 'content-length'],
    ['content-length-list', 'HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok', 'content-length'],
    ['content-length-plus', 'HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok', 'content-length'],
    [
      'chunk-size-space',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nok\r\n0\r\n\r\n',
      'chunk-extension',
    ],
    [
      'chunk-ext-bad',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;=x\r\nok\r\n0\r\n\r\n',
      'chunk-extension',
    ],
    [
      'chunk-ext-space',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 ;a\r\nok\r\n0\r\n\r\n',
      'chunk-extension',
    ],
    ['chunk-data-long', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokk\r\n0\r\n\r\n', 'chunk-data'],
    ['trailer-bad', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\0\r\n\r\n', 'field-value'],
    [
      'trailers-over-cap',
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${'X: y\r\n'.repeat(MAX_TRAILER_BYTES / 6 + 1)}\r\n`,
      'trailer-too-large',
    ],
    ['head-over-cap', ok(`X: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n`), 'head-too-large'],
    ['switching-protocols', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n', 'switching-protocols'],
    ['http-2', 'HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n', 'status-line'],
  ])('%s', async (name, text, reason) => {
    const err = await fetchRaw(name, text).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ResponseParseError', code: Http1ErrorCode.ParseError, reason });
  });
});

describe('Http1Pool frames per RFC 9112 §6.3 and keeps header values as sent', () => {
  it('keeps header names such as __proto__ and constructor as entries of a map without a prototype', async () => {
    const r = await fetchRaw('proto', ok('__proto__: x\r\nconstructor: y\r\nhasOwnProperty: z\r\n'));
    expect(Object.getPrototypeOf(r.headers)).toBe(null);
    expect(Object.entries(r.headers)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['hasownproperty', 'z'],
      ['content-length', '2'],
    ]);
  });

  it('takes obs-text and tabs inside a value, trims only spaces and tabs around it', async () => {
    const r = await fetchRaw('obs-text', ok('X-A: \t a\xffb\tc \t\r\nX-B: \xa0d\xa0\r\nX-C:\r\n'));
    expect(r.headers).toMatchObject({ 'x-a': 'a\xffb\tc', 'x-b': '\xa0d\xa0', 'x-c': '' });
  });

  it.each([
    [
      '1xx before the answer',
      'GET',
      `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\n${ok('')}`,
      200,
      'ok',
    ],
    ['204 with a Content-Length', 'GET', 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n', 204, ''],
    ['304 with a Transfer-Encoding', 'GET', 'HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n', 304, ''],
    ['HEAD with a Content-Length', 'HEAD', 'HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n', 200, ''],
    ['HEAD with chunked', 'HEAD', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', 200, ''],
    [
      'chunk extensions and trailers',
      'GET',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n2;a="b;c";d\r\nok\r\n0\r\nX: y\r\n\r\n',
      200,
      'ok',
    ],
    ['no length: to the close', 'GET', `HTTP/1.1 200 OK\r\n\r\nuntil close${CLOSE}`, 200, 'until close'],
  ])('%s', async (name, method, text, statusCode, body) => {
    const r = await fetchRaw(name.replaceAll(' ', '-'), text, method);
    expect(r).toMatchObject({ statusCode, body });
  });

  it('frames a chunked HTTP/1.0 answer and then closes its connection (RFC 9112 §6.1)', async () => {
    const r = await fetchRaw(
      'chunked-1.0',
      'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    );
    expect(r).toMatchObject({ statusCode: 200, body: 'ok', open: 0 });
  });
});
