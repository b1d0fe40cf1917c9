import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyCollector, bodyText, dispatchCollect } from '../../../host/src/net/collect.ts';

let server: http.Server;
let origin: string;
const agent = new Agent({ connections: 4 });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let received = '';
    req.on('data', (chunk: Buffer) => (received += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/echo') {
        res.setHeader('x-seen', req.headers['content-type'] ?? '');
        res.end(`${req.method} ${received}`);
      } else if (req.url === '/chunks') {
        // Three writes with pauses: the client sees the body in several chunks.
        res.write('é'.repeat(10));
        setTimeout(() => res.write('b'.repeat(70_000)), 10);
        setTimeout(() => res.end('end'), 20);
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 2_000);
      } else {
        res.statusCode = 404;
        res.end('{"kind":"Status","code":404}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('dispatchCollect', () => {
  it('collects status, headers and body of one exchange', async () => {
    const response = await dispatchCollect(agent, {
      origin,
      path: '/echo',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-seen']).toBe('application/json');
    expect(bodyText(response.chunks)).toBe('POST {"a":1}');
  });

  it('joins a body that arrives in several chunks, multi-byte characters intact', async () => {
    const response = await dispatchCollect(agent, { origin, path: '/chunks', method: 'GET' });
    expect(response.chunks.length).toBeGreaterThan(1);
    expect(bodyText(response.chunks)).toBe(`${'é'.repeat(10)}${'b'.repeat(70_000)}end`);
  });

  it('resolves error statuses like any other (the caller decides), with their body', async () => {
    const response = await dispatchCollect(agent, { origin, path: '/missing', method: 'GET' });
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(bodyText(response.chunks))).toEqual({ kind: 'Status', code: 404 });
  });

  it('drops the body with discardBody but still reports the status', async () => {
    const response = await dispatchCollect(agent, { origin, path: '/chunks', method: 'GET' }, { discardBody: true });
    expect(response.statusCode).toBe(200);
    expect(response.chunks).toEqual([]);
    expect(bodyText(response.chunks)).toBe('');
    // An error answer is kept even so: it says what went wrong (KubeApiError reads it).
    const error = await dispatchCollect(agent, { origin, path: '/missing', method: 'GET' }, { discardBody: true });
    expect(error.statusCode).toBe(404);
    expect(JSON.parse(bodyText(error.chunks))).toEqual({ kind: 'Status', code: 404 });
  });

  it('aborts a body above maxBytes with the tooLarge error', async () => {
    const err = await dispatchCollect(
      agent,
      { origin, path: '/chunks', method: 'GET' },
      { maxBytes: 1_000, tooLarge: (max) => new Error(`over ${max}`) },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('over 1000');
  });

  it("settles at once when the signal aborts mid-exchange, with the signal's reason or onAbort's error", async () => {
    const controller = new AbortController();
    const started = performance.now();
    const pending = dispatchCollect(agent, { origin, path: '/slow', method: 'GET' }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop now')), 50);
    await expect(pending).rejects.toThrow('stop now');
    expect(performance.now() - started).toBeLessThan(1_500);

    const other = new AbortController();
    const custom = dispatchCollect(
      agent,
      { origin, path: '/slow', method: 'GET' },
      { signal: other.signal, onAbort: () => new Error('custom abort') },
    );
    setTimeout(() => other.abort(), 50);
    await expect(custom).rejects.toThrow('custom abort');
  });

  it('refuses to start with a signal already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(
      dispatchCollect(agent, { origin, path: '/echo', method: 'GET' }, { signal: controller.signal }),
    ).rejects.toThrow('too late');
  });

  it('rejects with the transport error when the server cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await dispatchCollect(agent, { origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET' }).catch(
      (e: unknown) => e,
    );
    expect((err as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('BodyCollector', () => {
  const collect = (pieces: Buffer[]): Buffer[] => {
    const body = new BodyCollector();
    for (const piece of pieces) body.add(piece);
    return body.finish();
  };
  // Bytes of the distinct memory the chunks keep alive (small copies share Buffer's pool).
  const held = (chunks: Buffer[]): number =>
    [...new Set(chunks.map((c) => c.buffer))].reduce((n, b) => n + b.byteLength, 0);

  it('keeps a body that arrives in one piece, and large pieces, without a copy', () => {
    const only = Buffer.from('{"kind":"Node"}');
    expect(collect([only])[0]).toBe(only);
    const large = Buffer.alloc(64 * 1024, 'b');
    const chunks = collect([Buffer.from('a'), large, Buffer.from('c')]);
    expect(chunks).toContain(large);
    expect(bodyText(chunks)).toBe(`a${'b'.repeat(64 * 1024)}c`);
  });

  it('holds a million 1-byte pieces in a few pages, in order', () => {
    const pieces = Array.from({ length: 1_000_000 }, (_, i) => Buffer.of(97 + (i % 26)));
    const chunks = collect(pieces);
    expect(chunks.length).toBeLessThanOrEqual(16);
    expect(held(chunks)).toBeLessThanOrEqual(2 * 1_000_000 + 1024 * 1024);
    const text = bodyText(chunks);
    expect(text.length).toBe(1_000_000);
    expect(text.slice(0, 28)).toBe('abcdefghijklmnopqrstuvwxyzab');
    expect(text.slice(-2)).toBe(String.fromCharCode(97 + (999_998 % 26), 97 + (999_999 % 26)));
  });

  it('does not keep a page per small piece when small and large pieces alternate', () => {
    const large = Buffer.alloc(16 * 1024, 'L');
    const pieces: Buffer[] = [];
    for (let i = 0; i < 2_000; i++) pieces.push(Buffer.from('s'), large);
    const chunks = collect([Buffer.alloc(2 * 1024 * 1024, 'f'), ...pieces]);
    const bodyBytes = 2 * 1024 * 1024 + 2_000 * (1 + 16 * 1024);
    expect(Buffer.concat(chunks).length).toBe(bodyBytes);
    expect(bodyText(chunks).slice(2 * 1024 * 1024, 2 * 1024 * 1024 + 3)).toBe('sLL');
    // The large pieces share one buffer; what else is held stays within the body's size.
    expect(held(chunks.filter((c) => c.buffer !== large.buffer))).toBeLessThanOrEqual(bodyBytes);
  });
});
