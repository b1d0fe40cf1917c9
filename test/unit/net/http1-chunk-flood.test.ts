// A server that answers in 1-byte chunks (six bytes on the wire per byte of body). Kept as it arrives, such a body
// cost a Buffer object per byte: 4 MiB took 450 MiB of V8 heap, and a plugin's request through the broker aborted a
// CCM running with the chart's --max-old-space-size=256 (exit 134). The parser hands on one chunk per read and the
// collector copies small chunks into pages, so the body takes about its own size in a few buffers.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyText } from '../../../host/src/net/collect.ts';
import { Http1Pool } from '../../../host/src/net/http1/pool.ts';
import { type ChunkFloodServer, chunkFloodServer } from './support/chunk-flood.ts';

const MiB = 1024 * 1024;
const BODY_BYTES = 4 * MiB + 1;
const CHILD = new URL('./support/chunk-flood-child.ts', import.meta.url).pathname;

let server: ChunkFloodServer;
beforeAll(async () => {
  server = await chunkFloodServer(BODY_BYTES);
});
afterAll(() => server.close());

describe('a body in 1-byte chunks', () => {
  it('is collected in a few buffers, with V8 heap growth far below its size in objects', async () => {
    const pool = new Http1Pool(server.origin);
    try {
      const heapBefore = process.memoryUsage().heapUsed;
      const response = await pool.exchange({ method: 'GET', path: '/', headers: {} }, { maxBytes: 8 * MiB });
      const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
      expect(response.statusCode).toBe(200);
      const body = bodyText(response.chunks);
      expect(body.length).toBe(BODY_BYTES);
      expect(/^x+$/.test(body)).toBe(true);
      expect(response.chunks.length).toBeLessThanOrEqual(32);
      // What the buffers hold, free space of their pages included.
      const held = [...new Set(response.chunks.map((c) => c.buffer))].reduce((sum, b) => sum + b.byteLength, 0);
      expect(held).toBeLessThanOrEqual(2 * BODY_BYTES + MiB);
      expect(heapGrowth).toBeLessThan(64 * MiB);
    } finally {
      pool.destroy();
    }
  }, 60_000);

  it('through the plugin broker, does not abort a process with the chart heap of 256 MiB', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--max-old-space-size=256', '--no-warnings', CHILD, String(BODY_BYTES)],
      { encoding: 'utf8', timeout: 90_000 },
    );
    const result = JSON.parse(stdout.trim()) as { status: number; bodyBytes: number; heapMiB: number };
    expect(result).toMatchObject({ status: 200, bodyBytes: BODY_BYTES });
    expect(result.heapMiB).toBeLessThan(128);
  }, 90_000);
});
