// ccm_http_bytes and ccm_http_answer_read (ABI 1.3) from inside a plugin, through the worker, the channel and the
// broker: the fixture passes the test's frame to the host unchanged and outputs the answer frame, so binary bodies and
// malformed frames take the whole path. The answers the worker and the instance make themselves (limits) are framed
// too; a range outside the plugin's memory traps the call, as ccm_input_read's does.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadedPlugin, loadPlugin } from '../../../host/src/plugin/index.ts';
import { buildFixture } from '../../../lab/plugins/index.ts';
import { BINARY, type FramedAnswer, readAnswerFrame, requestFrame } from './support/frames.ts';
import { startServer, type TestServer } from './support/http-servers.ts';

const TOKEN = 'brokered-token-bytes';
let api: TestServer;
let plugin: LoadedPlugin;
let tight: LoadedPlugin;

const get = (url: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  method: 'GET',
  url,
  headers: {},
  timeoutMs: 0,
  ...fields,
});

async function send(p: LoadedPlugin, frame: Uint8Array): Promise<FramedAnswer> {
  return readAnswerFrame(await p.callExport('http_bytes', frame));
}

beforeAll(async () => {
  api = await startServer({
    '/echo': (req, res) => {
      res.setHeader('x-auth', req.headers.authorization ?? 'none');
      res.end(req.raw);
    },
    '/12k': (_req, res) => res.end(Buffer.alloc(12 * 1024, 7)),
    '/20k': (_req, res) => res.end(Buffer.alloc(20 * 1024, 7)),
  });
  const credentialsFile = join(mkdtempSync(join(tmpdir(), 'wasm-ccm-http-bytes-')), 'credentials.json');
  writeFileSync(
    credentialsFile,
    JSON.stringify({ credentials: [{ name: 'api', hosts: [api.host], bearerToken: TOKEN, insecure: true }] }),
  );
  const bytes = await buildFixture('http-bytes');
  const common = {
    source: { bytes },
    allowedHosts: [api.host],
    credentials: { file: credentialsFile, reloadIntervalMs: 0 },
    pool: { size: 1 },
  };
  plugin = await loadPlugin(common);
  // Channel of 16 KiB (the largest of input + 1 KiB, output and HTTP request), kernel budget of 8 KiB per call.
  tight = await loadPlugin({
    ...common,
    limits: {
      maxInputBytes: 8 * 1024,
      maxOutputBytes: 16 * 1024,
      maxHttpRequestBytes: 1024,
      kernelMemoryBytes: 8 * 1024,
      maxHttpResponseBytes: 1024 * 1024,
    },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([plugin?.close(), tight?.close()]);
  await api?.close();
});

describe('ccm_http_bytes from a plugin', () => {
  it('carries a binary body both ways, with the brokered credential', async () => {
    const answer = await send(plugin, requestFrame(get(api.url('/echo'), { method: 'PUT' }), BINARY));
    // The server got the brokered token; the header that echoes it reaches the plugin redacted.
    expect(api.seen.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(answer.head).toMatchObject({ status: 200, headers: { 'x-auth': 'Bearer [REDACTED]' } });
    expect(answer.body.equals(BINARY)).toBe(true);
    expect(api.seen.at(-1)?.raw.equals(BINARY)).toBe(true);
  });

  it('gets framed errors from the broker, and for malformed frames', async () => {
    const refused = await send(plugin, requestFrame(get('http://outside.example/')));
    expect(refused.head.error).toMatchObject({ code: 'Forbidden' });
    expect(refused.body.byteLength).toBe(0);
    const short = await send(plugin, Uint8Array.of(1, 2));
    expect(short.head.error).toMatchObject({ code: 'Network', message: expect.stringContaining('shorter than') });
    const badHead = await send(plugin, requestFrame('{"method":'));
    expect(badHead.head.error?.message).toContain('not UTF-8 JSON');
  });

  it('gets a framed TooLarge for a request above the limit, made by the worker', async () => {
    const before = api.seen.length;
    const answer = await send(tight, requestFrame(get(api.url('/echo'), { method: 'PUT' }), Buffer.alloc(2000)));
    expect(answer.head.error).toMatchObject({
      code: 'TooLarge',
      message: expect.stringContaining('above the limit of 1024'),
    });
    expect(answer.body.byteLength).toBe(0);
    expect(api.seen.length).toBe(before);
  });

  it('gets a framed TooLarge for an answer over the kernel budget, and over the channel', async () => {
    const budget = await send(tight, requestFrame(get(api.url('/12k'))));
    expect(budget.head.error).toMatchObject({
      code: 'TooLarge',
      message: expect.stringContaining('kernel memory budget'),
    });
    const channel = await send(tight, requestFrame(get(api.url('/20k'))));
    expect(channel.head.error).toMatchObject({
      code: 'TooLarge',
      message: 'the answer does not fit the channel',
    });
    // The instance is fine afterwards.
    expect((await send(tight, requestFrame(get(api.url('/echo'), { method: 'POST' }), BINARY))).body).toEqual(BINARY);
  });

  it('traps a call that passes a range outside its memory or reads more than the answer', async () => {
    await expect(plugin.callExport('http_bytes_bad_range', new Uint8Array(0))).rejects.toThrow(
      /the plugin passed a bad address: ccm_http_bytes: 64 bytes at address 0xfffffff0 run past the end of linear memory/,
    );
    const frame = requestFrame(get(api.url('/echo'), { method: 'PUT' }), BINARY);
    await expect(plugin.callExport('http_answer_overread', frame)).rejects.toThrow(
      /ccm_http_answer_read: asked for \d+ bytes of an answer of \d+/,
    );
  });

  it('reads its answer after a ccm_http request made before the read', async () => {
    const frame = requestFrame(get(api.url('/echo'), { method: 'PUT' }), BINARY);
    const json = JSON.stringify({ method: 'GET', url: api.url('/20k'), headers: {}, body: '', timeoutMs: 0 });
    const length = Buffer.alloc(4);
    length.writeUInt32LE(frame.byteLength);
    const before = api.seen.length;
    const input = Buffer.concat([length, frame, Buffer.from(json)]);
    const answer = readAnswerFrame(await plugin.callExport('http_bytes_then_json', input));
    // Both requests were made; the 20 KiB answer of the second did not replace the first's.
    expect(api.seen.length).toBe(before + 2);
    expect(answer.head).toMatchObject({ status: 200 });
    expect(answer.body.equals(BINARY)).toBe(true);
  });

  it('forgets an unread answer at the end of the call', async () => {
    const frame = requestFrame(get(api.url('/echo'), { method: 'PUT' }), BINARY);
    const size = Number(new TextDecoder().decode(await plugin.callExport('http_bytes_unread', frame)));
    expect(size).toBeGreaterThan(BINARY.byteLength);
    await expect(plugin.callExport('http_answer_only', new Uint8Array(0))).rejects.toThrow(
      'ccm_http_answer_read: asked for 1 bytes of an answer of 0',
    );
  });
});
