// The pool's beforeWrite hook: asked synchronously right before a request's bytes are written to a connected socket,
// it may refuse the request, which then fails with its error and never reaches the server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Http1Pool } from '../../../host/src/net/http1/pool.ts';

let server: http.Server;
let origin: string;
const received: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('beforeWrite', () => {
  it('is asked once the new connection is established, and lets the request go', async () => {
    const pool = new Http1Pool(origin);
    try {
      let calls = 0;
      let inExchangeCall = true;
      let askedWhileInExchangeCall: boolean | undefined;
      const answer = pool.exchange(
        { method: 'PUT', path: '/first', headers: {} },
        {
          beforeWrite: () => {
            calls++;
            askedWhileInExchangeCall = inExchangeCall;
            return undefined;
          },
        },
      );
      inExchangeCall = false;
      expect((await answer).statusCode).toBe(200);
      expect(calls).toBe(1);
      // Not when the request was handed over (the socket would have buffered the bytes until the connect).
      expect(askedWhileInExchangeCall).toBe(false);
      expect(received).toContain('PUT /first');
    } finally {
      await pool.close();
    }
  });

  it('refuses a request on a new and on a reused connection: it fails with the error, nothing is sent', async () => {
    const pool = new Http1Pool(origin, { connections: 1 });
    try {
      const refusal = new Error('the lease went stale');
      await expect(
        pool.exchange({ method: 'PUT', path: '/refused-new', headers: {} }, { beforeWrite: () => refusal }),
      ).rejects.toBe(refusal);
      expect((await pool.exchange({ method: 'GET', path: '/warm', headers: {} })).statusCode).toBe(200);
      expect(pool.stats().idle).toBe(1);
      await expect(
        pool.exchange({ method: 'PUT', path: '/refused-reused', headers: {} }, { beforeWrite: () => refusal }),
      ).rejects.toBe(refusal);
      // The pool serves on.
      expect((await pool.exchange({ method: 'GET', path: '/after', headers: {} })).statusCode).toBe(200);
      expect(received).toContain('GET /after');
      expect(received.filter((r) => r.includes('refused'))).toEqual([]);
    } finally {
      await pool.close();
    }
  });
});
