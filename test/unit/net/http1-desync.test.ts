// A hostile server behind Http1Pool must not make one request receive the answer the server wrote for another:
// bytes past a complete response close the connection with an error and never reach the next exchange.
import { afterEach, describe, expect, it } from 'vitest';
import { bodyText } from '../../../host/src/net/collect.ts';
import { Http1ErrorCode } from '../../../host/src/net/http1/errors.ts';
import { Http1Pool } from '../../../host/src/net/http1/pool.ts';
import { eventually } from '../../../lab/process/index.ts';
import { pathOf, rawServer, type RawServer } from './raw-server.ts';

const FORGED = 'HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged';
const answer = (body: string): string => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

let server: RawServer | undefined;
let pool: Http1Pool | undefined;
afterEach(() => {
  pool?.destroy();
  server?.close();
});

describe('Http1Pool against a server that sends more than one answer', () => {
  it.each([
    ['a second response right after a complete one', 'GET', answer('r1') + FORGED],
    ['a body on a HEAD answer', 'HEAD', `HTTP/1.1 200 OK\r\nContent-Length: ${FORGED.length}\r\n\r\n${FORGED}`],
    ['a body longer than its Content-Length', 'GET', `HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nr1xx${FORGED}`],
    [
      'Content-Length and Transfer-Encoding together',
      'GET',
      `HTTP/1.1 200 OK\r\nContent-Length: 13\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nr1\r\n0\r\n\r\n${FORGED}`,
    ],
    ['a body on a 204', 'GET', `HTTP/1.1 204 No Content\r\n\r\n${FORGED}`],
    ['a 1xx, the answer, then more', 'GET', `HTTP/1.1 100 Continue\r\n\r\n${answer('r1')}${FORGED}`],
  ])('%s: the queued request gets its own answer, the first fails', async (_name, method, first) => {
    // Each request is answered only once the server has read it; the first answer carries extra bytes in its write.
    server = await rawServer((socket, request) => {
      socket.write(pathOf(request) === '/r1' ? first : answer(pathOf(request).slice(1)));
    });
    pool = new Http1Pool(server.origin, { connections: 1 });
    const one = pool.exchange({ method, path: '/r1', headers: {} });
    const two = pool.exchange({ method: 'GET', path: '/r2', headers: {} });
    const [first1, second] = await Promise.allSettled([one, two]);
    expect(second.status === 'fulfilled' && bodyText(second.value.chunks)).toBe('r2');
    expect(first1.status === 'rejected' && first1.reason).toMatchObject({
      code: Http1ErrorCode.ParseError,
      reason: expect.stringMatching(/^(unexpected-data|content-length-with-transfer-encoding)$/),
    });
    // The second answer came on a connection of its own: the first one was closed.
    expect(server.accepted).toBe(2);
  });

  it('closes a connection on which bytes arrive while no request is outstanding; the next request opens another', async () => {
    server = await rawServer((socket, request) => {
      socket.write(answer(pathOf(request).slice(1)));
      if (request.n === 1) setTimeout(() => socket.write(FORGED), 20);
    });
    pool = new Http1Pool(server.origin, { connections: 1 });
    expect(bodyText((await pool.exchange({ method: 'GET', path: '/r1', headers: {} })).chunks)).toBe('r1');
    await eventually('the connection closed', () => pool?.stats().connections === 0, 5_000, 10);
    expect(bodyText((await pool.exchange({ method: 'GET', path: '/r2', headers: {} })).chunks)).toBe('r2');
    expect(server.accepted).toBe(2);
  });

  it('does not send a GET again after its reused connection answered with bytes it refused', async () => {
    let requests = 0;
    server = await rawServer((socket, request) => {
      requests++;
      socket.write(request.n === 1 ? answer('r1') : 'SMTP ready\r\n\r\n');
    });
    pool = new Http1Pool(server.origin, { connections: 1 });
    await pool.exchange({ method: 'GET', path: '/r1', headers: {} });
    await expect(pool.exchange({ method: 'GET', path: '/r2', headers: {} })).rejects.toMatchObject({
      code: Http1ErrorCode.ParseError,
      reason: 'status-line',
    });
    expect(requests).toBe(2);
  });
});
