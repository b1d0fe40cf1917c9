import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bodyText } from '../../../host/src/net/collect.ts';
import { Http1ErrorCode } from '../../../host/src/net/http1/errors.ts';
import { Http1Pool } from '../../../host/src/net/http1/pool.ts';
import { rawServer } from './raw-server.ts';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

let server: http.Server;
let origin: string;
let handler: Handler;
/** Sockets the server accepted, and how many requests are being answered now / at most at once. */
let accepted = 0;
let inFlight = 0;
let maxInFlight = 0;
const pools: Http1Pool[] = [];

function pool(options: ConstructorParameters<typeof Http1Pool>[1] = {}, at = origin): Http1Pool {
  const p = new Http1Pool(at, options);
  pools.push(p);
  return p;
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', () => accepted++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  for (const p of pools.splice(0)) p.destroy();
  accepted = 0;
  maxInFlight = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('Http1Pool', () => {
  it('sends method, path, headers and body, and collects status, headers and body', async () => {
    handler = (req, res, body) => {
      res.setHeader('x-seen', `${req.method} ${req.url} ${req.headers['content-type']} ${req.headers.host}`);
      res.end(`got ${body}`);
    };
    const p = pool();
    const r = await p.exchange({
      method: 'POST',
      path: '/a?b=c',
      headers: { 'content-type': 'application/json' },
      body: '{"é":1}',
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-seen']).toBe(`POST /a?b=c application/json ${new URL(origin).host}`);
    expect(bodyText(r.chunks)).toBe('got {"é":1}');
  });

  it('sends a binary body byte for byte, with its length', async () => {
    const seen: Buffer[] = [];
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
    const echo = http.createServer((req, res) => {
      req.on('data', (c: Buffer) => seen.push(c));
      req.on('end', () => res.end(`${req.method} ${req.headers['content-length']}`));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const p = pool({}, `http://127.0.0.1:${(echo.address() as AddressInfo).port}`);
      const r = await p.exchange({ method: 'PROPFIND', path: '/', headers: {}, body: bytes });
      expect(bodyText(r.chunks)).toBe('PROPFIND 300');
      expect(Buffer.concat(seen).equals(Buffer.from(bytes))).toBe(true);
    } finally {
      echo.closeAllConnections();
      echo.close();
    }
  });

  it('reuses one keep-alive connection for requests one after another', async () => {
    handler = (_req, res) => res.end('ok');
    const p = pool();
    for (let i = 0; i < 5; i++) await p.exchange({ method: 'GET', path: '/', headers: {} });
    expect(accepted).toBe(1);
    expect(p.stats()).toMatchObject({ connections: 1, idle: 1, active: 0 });
  });

  it('opens at most `connections` connections; the other requests wait their turn', async () => {
    handler = (_req, res) => setTimeout(() => res.end('ok'), 20);
    const p = pool({ connections: 3 });
    const all = Array.from({ length: 10 }, () => p.exchange({ method: 'GET', path: '/', headers: {} }));
    expect(p.stats()).toMatchObject({ connections: 3, active: 3, queued: 7 });
    const results = await Promise.all(all);
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    expect(accepted).toBe(3);
    expect(maxInFlight).toBe(3);
  });

  it('times out a missing head and a stalled body, closing their connections; the pool goes on', async () => {
    handler = (req, res) => {
      if (req.url === '/no-head') return; // never answers
      if (req.url === '/stall') {
        res.writeHead(200, { 'content-length': '10' });
        res.write('abc');
        return;
      }
      res.end('ok');
    };
    const p = pool();
    await expect(p.exchange({ method: 'GET', path: '/no-head', headers: {}, headersTimeoutMs: 100 })).rejects.toThrow(
      expect.objectContaining({ code: Http1ErrorCode.HeadersTimeout, message: expect.stringMatching(/timeout/) }),
    );
    await expect(p.exchange({ method: 'GET', path: '/stall', headers: {}, bodyTimeoutMs: 100 })).rejects.toThrow(
      expect.objectContaining({ code: Http1ErrorCode.BodyTimeout }),
    );
    expect(p.stats().connections).toBe(0);
    expect((await p.exchange({ method: 'GET', path: '/', headers: {} })).statusCode).toBe(200);
  });

  it('aborts a request waiting for a connection and one in flight, with the abort reason', async () => {
    handler = (req, res) => (req.url === '/hang' ? undefined : res.end('ok'));
    const p = pool({ connections: 1 });
    const inFlightAbort = new AbortController();
    const queuedAbort = new AbortController();
    const first = p.exchange({ method: 'GET', path: '/hang', headers: {} }, { signal: inFlightAbort.signal });
    const second = p.exchange({ method: 'GET', path: '/', headers: {} }, { signal: queuedAbort.signal });
    const third = p.exchange({ method: 'GET', path: '/', headers: {} });
    queuedAbort.abort(new Error('queued one aborted'));
    await expect(second).rejects.toThrow('queued one aborted');
    inFlightAbort.abort(new Error('in-flight one aborted'));
    await expect(first).rejects.toThrow('in-flight one aborted');
    expect((await third).statusCode).toBe(200);
    await expect(
      p.exchange({ method: 'GET', path: '/', headers: {} }, { signal: AbortSignal.abort(new Error('already')) }),
    ).rejects.toThrow('already');
  });

  it('stops reading past maxBytes, and drops a successful body when asked (but not an error body)', async () => {
    handler = (req, res) => {
      res.statusCode = req.url === '/err' ? 409 : 200;
      res.end('x'.repeat(1000));
    };
    const p = pool();
    await expect(
      p.exchange({ method: 'GET', path: '/', headers: {} }, { maxBytes: 100, tooLarge: (m) => new Error(`over ${m}`) }),
    ).rejects.toThrow('over 100');
    const ok = await p.exchange({ method: 'PATCH', path: '/', headers: {}, body: '{}' }, { discardBody: true });
    expect(ok).toMatchObject({ statusCode: 200, chunks: [] });
    const err = await p.exchange({ method: 'PATCH', path: '/err', headers: {}, body: '{}' }, { discardBody: true });
    expect(bodyText(err.chunks)).toHaveLength(1000);
  });

  it('sends a GET again on a new connection when a reused one closes before answering; not a POST', async () => {
    // Each socket answers its first request and drops the connection on the second, as a server closing an idle
    // keep-alive connection just as the request arrives.
    const raw = await rawServer((socket, { n }) => {
      if (n === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      else socket.destroy();
    });
    try {
      const p = pool({}, raw.origin);
      await p.exchange({ method: 'GET', path: '/', headers: {} });
      expect((await p.exchange({ method: 'GET', path: '/', headers: {} })).statusCode).toBe(200);
      await expect(p.exchange({ method: 'POST', path: '/', headers: {}, body: 'x' })).rejects.toThrow(
        /closed|ECONNRESET|EPIPE/,
      );
    } finally {
      raw.close();
    }
  });

  it('fails a request on a fresh connection at once: no retry, the cause kept (connection refused)', async () => {
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const p = pool({}, `http://127.0.0.1:${port}`);
    await expect(p.exchange({ method: 'GET', path: '/', headers: {} })).rejects.toThrow(
      expect.objectContaining({ code: 'ECONNREFUSED' }),
    );
  });

  it('refuses a garbled answer and closes that connection', async () => {
    const raw = await rawServer((socket) => socket.write('SMTP ready\r\n\r\n'));
    try {
      const p = pool({}, raw.origin);
      await expect(p.exchange({ method: 'GET', path: '/', headers: {} })).rejects.toThrow(/status line/);
      expect(p.stats().connections).toBe(0);
    } finally {
      raw.close();
    }
  });

  it('refuses header values, paths and methods that would break the request line', async () => {
    handler = (_req, res) => res.end('ok');
    const p = pool();
    await expect(p.exchange({ method: 'GET', path: '/', headers: { a: 'x\r\nInjected: 1' } })).rejects.toThrow(
      /invalid header/,
    );
    await expect(p.exchange({ method: 'GET', path: '/a b', headers: {} })).rejects.toThrow(/invalid request path/);
    await expect(p.exchange({ method: 'GET /x', path: '/', headers: {} })).rejects.toThrow(/invalid method/);
    expect(accepted).toBe(0);
  });

  it('closes idle connections after idleTimeoutMs', async () => {
    handler = (_req, res) => res.end('ok');
    const p = pool({ idleTimeoutMs: 50 });
    await p.exchange({ method: 'GET', path: '/', headers: {} });
    expect(p.stats().idle).toBe(1);
    await expect.poll(() => p.stats().connections, { timeout: 5_000 }).toBe(0);
  });

  it('close() lets what is in flight finish, then refuses new requests', async () => {
    handler = (_req, res) => setTimeout(() => res.end('late'), 50);
    const p = pool();
    const pending = p.exchange({ method: 'GET', path: '/', headers: {} });
    const closed = p.close();
    await expect(p.exchange({ method: 'GET', path: '/', headers: {} })).rejects.toThrow(/closed/);
    expect(bodyText((await pending).chunks)).toBe('late');
    await closed;
    expect(p.stats().connections).toBe(0);
  });

  it('does not keep the process alive with idle connections', async () => {
    // A child makes one request to this file's server and returns. Its idle connection (30 s idle timeout; the
    // server's keep-alive timeout is 5 s) must not hold the exit.
    handler = (_req, res) => res.end('ok');
    const script = `
      import { Http1Pool } from ${JSON.stringify(new URL('../../../host/src/net/http1/pool.ts', import.meta.url).href)};
      const r = await new Http1Pool(process.env.ORIGIN).exchange({ method: 'GET', path: '/', headers: {} });
      console.log(r.statusCode);`;
    const started = Date.now();
    // Not spawnSync: this process's server has to answer the child.
    const child = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, ORIGIN: origin },
    });
    expect(child.stdout.trim()).toBe('200');
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('Http1Pool.stream', () => {
  it('hands over the head at once and the body as it arrives, on a connection outside the pool', async () => {
    let finish: (() => void) | undefined;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":1}\n');
      finish = () => res.end('{"b":2}\n');
    };
    const p = pool({ connections: 1 });
    const response = await p.stream({ method: 'GET', path: '/watch', headers: {} });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    // The pool's one connection is still free for requests.
    handler = (_req, res) => res.end('ok');
    expect((await p.exchange({ method: 'GET', path: '/', headers: {} })).statusCode).toBe(200);
    const seen: string[] = [];
    for await (const chunk of response.body) {
      seen.push(Buffer.from(chunk).toString());
      finish?.();
    }
    expect(seen.join('')).toBe('{"a":1}\n{"b":2}\n');
  });

  it('fails the reader when the connection breaks mid-body, and closes it when the reader stops early', async () => {
    const raw = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n');
      setTimeout(() => socket.destroy(), 20);
    });
    try {
      const p = pool({}, raw.origin);
      const broken = await p.stream({ method: 'GET', path: '/', headers: {} });
      const read = async (): Promise<string> => {
        let text = '';
        for await (const chunk of broken.body) text += Buffer.from(chunk).toString();
        return text;
      };
      await expect(read()).rejects.toThrow(/closed/);
      const early = await p.stream({ method: 'GET', path: '/', headers: {} });
      for await (const _chunk of early.body) break;
    } finally {
      raw.close();
    }
  });

  it('aborts a stream with the signal, before and after its head', async () => {
    handler = (req, res) => {
      if (req.url === '/no-head') return;
      res.writeHead(200);
      res.write('x');
    };
    const p = pool();
    const beforeHead = new AbortController();
    const pending = p.stream({ method: 'GET', path: '/no-head', headers: {} }, beforeHead.signal);
    beforeHead.abort(new Error('stop waiting'));
    await expect(pending).rejects.toThrow('stop waiting');
    const afterHead = new AbortController();
    const response = await p.stream({ method: 'GET', path: '/', headers: {} }, afterHead.signal);
    const iterator = response.body[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    afterHead.abort(new Error('watch stopped'));
    await expect(iterator.next()).rejects.toThrow('watch stopped');
  });

  it('gives up on a head that does not come', async () => {
    handler = () => {};
    const p = pool();
    await expect(p.stream({ method: 'GET', path: '/', headers: {}, headersTimeoutMs: 100 })).rejects.toThrow(
      expect.objectContaining({ code: Http1ErrorCode.HeadersTimeout }),
    );
  });
});

describe('Http1Pool connect timeout', () => {
  // A server that accepts the TCP connection and never answers the TLS handshake: the connection never completes.
  let silent: net.Server;
  let silentOrigin: string;
  const held = new Set<net.Socket>();
  beforeAll(async () => {
    silent = net.createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentOrigin = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('fails a request and a stream whose server never completes the handshake, naming the host', async () => {
    const p = pool({}, silentOrigin);
    const host = new URL(silentOrigin).host;
    const expected = expect.objectContaining({
      name: 'ConnectTimeoutError',
      code: Http1ErrorCode.ConnectTimeout,
      message: expect.stringContaining(`${host} not reached in 10000 ms`),
    });
    await Promise.all([
      expect(p.exchange({ method: 'GET', path: '/', headers: {} })).rejects.toThrow(expected),
      expect(p.stream({ method: 'GET', path: '/', headers: {} })).rejects.toThrow(expected),
    ]);
    expect(p.stats()).toMatchObject({ connections: 0, active: 0, queued: 0 });
  }, 20_000);
});
