import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateValue } from '../../../host/src/abi/index.ts';
import { compileFixture, FakeHost, frame, load, type TestPlugin } from '../../../lab/plugins/index.ts';

let probe: TestPlugin;
let host: FakeHost;
beforeAll(async () => {
  host = new FakeHost();
  probe = await load(await compileFixture('probe'), host);
}, 120_000);
afterAll(async () => {
  await probe?.plugin.close();
});

describe('HTTP client over ccm_http_bytes', () => {
  it('sends method, URL, merged headers, JSON body and timeout as a valid HttpRequest', async () => {
    host.httpRequests = [];
    host.httpAnswer = () => ({ status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"i-ü"}' });
    const out = await probe.json('http_probe', { method: 'POST', path: '/instances', body: { name: 'vm-ü', n: 2 } });
    expect(host.httpRequests).toHaveLength(1);
    const { bodyBytes, ...sent } = host.httpRequests[0] as Record<string, unknown>;
    expect(validateValue('HttpRequest', sent).ok).toBe(true);
    expect(bodyBytes).toEqual(new TextEncoder().encode('{"name":"vm-ü","n":2}'));
    expect(sent).toEqual({
      method: 'POST',
      url: 'https://api.example/v1/instances',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: '{"name":"vm-ü","n":2}',
      timeoutMs: 1500,
    });
    expect(out).toMatchObject({
      ok: true,
      status: 201,
      contentType: 'application/json',
      body: '{"id":"i-ü"}',
      bodyLength: 13,
      fields: { id: 'i-ü' },
      json: { id: 'i-ü' },
      errorCode: '',
    });
  });

  it('moves bodies as bytes both ways: invalid UTF-8 arrives intact and decodes to U+FFFD only as text', async () => {
    host.httpRequests = [];
    host.httpAnswer = () => ({ status: 200, headers: {}, body: new Uint8Array([0x61, 0xff, 0x00, 0x62]) });
    const out = await probe.json('http_probe', { method: 'PATCH', path: '/bin', body: 'a\u0000b' });
    expect((host.httpRequests[0] as { bodyBytes: Uint8Array }).bodyBytes).toEqual(new Uint8Array([0x61, 0, 0x62]));
    expect(out).toMatchObject({ ok: true, bodyLength: 4, body: 'a\ufffd\u0000b', json: null, fields: null });
  });

  it('reads only the asked-for top-level fields with jsonFields, and checks the skipped ones', async () => {
    const big = { id: 'lb-1', backends: Array.from({ length: 500 }, (_, i) => `i-${i}`), nested: { a: [{ b: 'c' }] } };
    host.httpAnswer = () => ({ status: 200, headers: {}, body: JSON.stringify(big) });
    expect(await probe.json('http_probe', { method: 'GET', path: '/lb' })).toMatchObject({
      fields: { id: 'lb-1' },
      json: big,
    });
    host.httpAnswer = () => ({ status: 200, headers: {}, body: '{"id":"x","skipped":[1,2,}' });
    expect(await probe.json('http_probe', { method: 'GET', path: '/lb' })).toMatchObject({ fields: null, json: null });
  });

  it('passes extra headers and text bodies for other methods', async () => {
    host.httpRequests = [];
    host.httpAnswer = () => ({ status: 204, headers: {}, body: '' });
    const out = await probe.json('http_probe', { method: 'PATCH', path: '/x', body: 'raw text' });
    expect(host.httpRequests[0]).toMatchObject({
      method: 'PATCH',
      headers: { accept: 'application/json', 'x-extra': '1' },
      body: 'raw text',
    });
    expect(out).toMatchObject({ ok: true, status: 204, body: '', json: null });
  });

  it('reports non-2xx statuses, and turns 429 + Retry-After into Retry', async () => {
    host.httpAnswer = () => ({ status: 404, headers: {}, body: '{"message":"no such instance"}' });
    expect(await probe.json('http_probe', { method: 'GET', path: '/instances/i-9' })).toMatchObject({
      ok: false,
      status: 404,
      asPluginError: {
        code: 'Internal',
        message: 'GET https://api.example/v1/instances/i-9: status 404: {"message":"no such instance"}',
      },
    });
    host.httpAnswer = () => ({ status: 429, headers: { 'retry-after': '7' }, body: '' });
    expect(await probe.json('http_probe', { method: 'DELETE', path: '/instances/i-9' })).toMatchObject({
      ok: false,
      status: 429,
      asPluginError: {
        code: 'Retry',
        message: 'DELETE https://api.example/v1/instances/i-9: status 429',
        retryAfterSeconds: 7,
      },
    });
  });

  it.each(['Forbidden', 'Timeout', 'TooLarge', 'Network'])('surfaces the %s transport error as typed', async (code) => {
    host.httpAnswer = () => ({ error: { code, message: `${code} happened` } });
    expect(await probe.json('http_probe', { method: 'GET', path: '/x' })).toMatchObject({
      ok: false,
      status: 0,
      errorCode: code,
      errorMessage: `${code} happened`,
      asPluginError: { code: 'Internal', message: `GET https://api.example/v1/x: ${code}: ${code} happened` },
    });
  });

  it.each([
    ['a head of the wrong shape', frame({ status: '200', headers: {} }), 'head.status: expected number, got string'],
    [
      'a head that is not JSON',
      new Uint8Array([2, 0, 0, 0, 0x7b, 0x5d, 0x7d]),
      'head: invalid JSON at byte 1: expected',
    ],
    ['three bytes', new Uint8Array([1, 0, 0]), 'it has 3 bytes, no head length'],
    ['a head length past the end', new Uint8Array([9, 0, 0, 0, 0x7b, 0x7d]), 'its head length 9 runs past its end'],
  ])('treats a malformed host answer (%s) as a Network error naming the problem', async (_what, bytes, why) => {
    host.httpFrame = () => bytes;
    try {
      expect(await probe.json('http_probe', { method: 'GET', path: '/x' })).toMatchObject({
        ok: false,
        errorCode: 'Network',
        errorMessage: expect.stringContaining(`malformed answer from ccm_http_bytes: ${why}`),
      });
    } finally {
      host.httpFrame = null;
    }
  });
});

describe('logging, clock and config', () => {
  it('sends one valid LogRecord per log call, with fields and non-ASCII text', async () => {
    host.logs = [];
    expect(await probe.call('log_probe')).toBe('');
    expect(host.logs).toEqual([
      { level: 'debug', message: 'debug message', fields: {} },
      { level: 'info', message: 'info ü 😀', fields: { instance: 'i-1', quote: 'say "hi"' } },
      { level: 'warn', message: 'warn message', fields: {} },
      { level: 'error', message: 'error message', fields: { code: '42' } },
    ]);
    for (const record of host.logs) expect(validateValue('LogRecord', record).ok).toBe(true);
  });

  it('reads the wall clock from ccm_now_ms', async () => {
    host.nowMs = 1_712_345_678_901n;
    expect(await probe.call('clock_probe')).toBe('1712345678901');
  });

  it('pauses through ccm_sleep_ms only for positive times, capped at 60 s', async () => {
    host.nowMs = 1_000n;
    host.sleeps.length = 0;
    expect(JSON.parse(await probe.call('sleep_probe'))).toEqual([1000, 1000 + 250 + 60_000]);
    expect(host.sleeps).toEqual([250, 60_000]);
  });

  it('parses key = value configs with sections, quotes, comments and problems', async () => {
    const text = [
      '# comment',
      'top = 1',
      '[a]',
      'n = 42',
      'flag = Yes',
      'name = "quoted value"',
      '; another comment',
      'not a pair',
      '[b] ',
      'url = https://x.example/?q=a=b',
    ].join('\n');
    expect(await probe.json('ini_probe', text)).toEqual({
      values: { top: '1', 'a.n': '42', 'a.flag': 'Yes', 'a.name': 'quoted value', 'b.url': 'https://x.example/?q=a=b' },
      problems: ['line 8: expected key = value'],
      n: 42,
      flag: true,
    });
    expect(await probe.json('ini_probe', '[a]\nn = 12x\nflag = maybe')).toMatchObject({ n: -1, flag: false });
  });
});

describe('abort handler', () => {
  it('logs the reason through ccm_log and traps instead of importing env.abort', async () => {
    host.logs = [];
    await expect(probe.call('abort_probe', 'abc')).rejects.toThrow(/unreachable/);
    expect(host.logs).toHaveLength(1);
    expect(host.logs[0]).toMatchObject({ level: 'error' });
    expect((host.logs[0] as { message: string }).message).toMatch(
      /^plugin aborted: input length is not negative: 3 at .*probe\.ts:\d+:\d+$/,
    );
    // The instance still answers afterwards.
    expect(await probe.call('clock_probe')).toMatch(/^\d+$/);
  });
});
