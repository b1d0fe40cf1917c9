// A plugin trying to starve the main thread through its HTTP imports, no cooperating server needed: ccm_http requests
// of 4 MiB of nested JSON, ccm_http answers of 8 MiB of 0x01 (six times that once JSON-escaped), ccm_http_bytes frames
// of 8 MiB and frames whose head is megabytes of nested JSON. The main thread serves every instance, the controllers
// and the apiserver watches: no single piece of its work for a plugin may hold it for 100 ms or more. Measured in CPU
// time between the ticks of a 1 ms timer, so that a busy machine descheduling the thread does not count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlugin } from '../../../host/src/plugin/runtime/load-plugin.ts';
import type { LoadedPlugin } from '../../../host/src/plugin/runtime/loaded-plugin.ts';
import { readAnswerFrame, requestFrame } from './support/frames.ts';
import { hostileModule } from '../../../lab/plugins/index.ts';
import { startServer, type TestServer } from './support/http-servers.ts';

const MiB = 1024 * 1024;
const ONES = Buffer.alloc(8 * MiB - 64 * 1024, 1);
const HUGE_HEAD = 4 * MiB;

// http_json: ccm_http with the call's input as the request block; http_frame: ccm_http_bytes with the input as the
// frame. Each outputs the first 256 bytes of the answer (enough to see what came back).
const IMPORTS = `
  (import "extism:host/env" "input_offset" (func $input_offset (result i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/user" "ccm_input_read" (func $input_read (param i32 i32)))
  (import "extism:host/user" "ccm_http" (func $http (param i64) (result i64)))
  (import "extism:host/user" "ccm_http_bytes" (func $http_bytes (param i32 i32) (result i32)))
  (import "extism:host/user" "ccm_http_answer_read" (func $answer_read (param i32 i32)))`;
const EXPORTS = `
  (func $at_most_256 (param $n i64) (result i64)
    (select (local.get $n) (i64.const 256) (i64.lt_u (local.get $n) (i64.const 256))))
  (func (export "http_json") (result i32)
    (local $answer i64)
    (local.set $answer (call $http (call $input_offset)))
    (call $output_set (local.get $answer) (call $at_most_256 (call $length (local.get $answer))))
    (i32.const 0))
  (func (export "http_frame") (result i32)
    (local $length i32) (local $read i32)
    (local.set $length (i32.wrap_i64 (call $input_length)))
    (call $input_read (i32.const 4096) (local.get $length))
    (local.set $read (i32.wrap_i64 (call $at_most_256
      (i64.extend_i32_u (call $http_bytes (i32.const 4096) (local.get $length))))))
    (call $answer_read (i32.const 4096) (local.get $read))
    (call $emit (i32.const 4096) (local.get $read))
    (i32.const 0))`;

let api: TestServer;
let plugin: LoadedPlugin;

beforeAll(async () => {
  api = await startServer({
    '/ones': (_req, res) => res.end(ONES),
    '/sink': (req, res) => res.end(`got ${req.raw.byteLength}`),
  });
  plugin = await loadPlugin({
    source: { bytes: hostileModule({ imports: IMPORTS, body: EXPORTS, memory: '(memory (export "memory") 160)' }) },
    allowedHosts: [api.host],
    pool: { size: 2, minInstances: 2 },
    limits: { callTimeoutMs: 60_000, maxInputBytes: 12 * MiB, maxHttpRequestBytes: 12 * MiB },
  });
}, 60_000);

afterAll(async () => {
  await plugin?.close();
  await api?.close();
});

/** The most CPU the main thread spent between two ticks of a 1 ms timer while `work` ran, in ms. */
async function longestBusyStretch(work: () => Promise<void>): Promise<number> {
  let longest = 0;
  let last = process.threadCpuUsage();
  const timer = setInterval(() => {
    const now = process.threadCpuUsage();
    longest = Math.max(longest, (now.user - last.user + now.system - last.system) / 1000);
    last = now;
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return longest;
}

// JSON text padded with spaces to a multiple of 8 bytes.
const padded = (json: string): Uint8Array => Buffer.from(json.padEnd(Math.ceil(json.length / 8) * 8, ' '));
const nested = (bytes: number): string => `${'['.repeat(bytes / 2)}${']'.repeat(bytes / 2)}`;
const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

describe('a plugin hammering the HTTP imports with requests and answers made to be costly', () => {
  it('never holds the main thread for 100 ms', async () => {
    const get = (url: string): string => JSON.stringify({ method: 'GET', url, headers: {}, body: '', timeoutMs: 0 });
    const calls: Array<[string, Uint8Array, (answer: string) => void]> = [
      ['http_json', padded(nested(4 * MiB)), (a) => expect(a).toMatch(/^\{"error":\{"code":"Network"/)],
      ['http_json', padded(get(api.url('/ones'))), (a) => expect(a).toMatch(/^\{"status":200,"headers":/)],
      [
        'http_frame',
        requestFrame({ method: 'POST', url: api.url('/sink'), headers: {}, timeoutMs: 0 }, ONES),
        (a) => expect(a).toContain('"status":200'),
      ],
      ['http_frame', requestFrame(nested(HUGE_HEAD)), (a) => expect(a).toContain('"error":{"code":"Network"')],
      ['http_frame', requestFrame(nested(60 * 1024)), (a) => expect(a).toContain('"error":{"code":"Network"')],
    ];
    const sinkBefore = api.seen.filter((r) => r.path === '/sink').length;
    const longest = await longestBusyStretch(async () => {
      for (let round = 0; round < 3; round++) {
        await Promise.all(calls.map(async ([name, input, check]) => check(text(await plugin.callExport(name, input)))));
      }
    });
    // The work happened: every ccm_http_bytes POST of 8 MiB reached the server whole.
    const sunk = api.seen.filter((r) => r.path === '/sink').slice(sinkBefore);
    expect(sunk.map((r) => r.raw.byteLength)).toEqual([ONES.byteLength, ONES.byteLength, ONES.byteLength]);
    expect(longest).toBeLessThan(100);
  }, 120_000);

  it('answers a frame head too large to read with a Network error naming the limit', async () => {
    const answer = readAnswerFrame(await plugin.callExport('http_frame', requestFrame(nested(HUGE_HEAD))));
    expect(answer.head.error?.message).toContain(`head of ${HUGE_HEAD} bytes is larger than the 65536 the host reads`);
  });
});
