// The broker's framed path (ccm_http_bytes, ABI 1.3): raw bodies both ways, the same policies as ccm_http, and
// malformed frames answered with a framed Network error that names the problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import { buildFrame, errorFrame } from '../../../host/src/plugin/broker/http-frame.ts';
import { BINARY, type FramedAnswer, readAnswerFrame, requestFrame } from './support/frames.ts';
import { startServer, type TestServer } from './support/http-servers.ts';
import { testBroker } from './support/test-broker.ts';

let api: TestServer;
let forbidden: TestServer;
let broker: HttpBroker;

const head = (fields: Record<string, unknown>): Record<string, unknown> => ({
  method: 'GET',
  url: '',
  headers: {},
  timeoutMs: 0,
  ...fields,
});

async function ask(frame: Uint8Array, call = new AbortController().signal): Promise<FramedAnswer> {
  return readAnswerFrame(await broker.handleBytes(frame, call));
}

beforeAll(async () => {
  forbidden = await startServer({ '/': (_req, res) => res.end('you should not be here') });
  api = await startServer({
    '/echo': (req, res) => {
      res.setHeader('content-type', 'application/octet-stream');
      res.setHeader('x-method', req.method);
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.end(req.raw);
    },
    '/binary': (_req, res) => res.end(BINARY),
    '/empty': (_req, res) => res.writeHead(204).end(),
    '/see-other': (_req, res) => res.writeHead(303, { location: '/echo' }).end(),
    '/big': (_req, res) => res.end(Buffer.alloc(4096, 1)),
    '/slow': (_req, res) => setTimeout(() => res.end('late'), 400),
  });
  const credentials = CredentialStore.empty();
  broker = testBroker([api.host], credentials);
});

afterAll(async () => {
  broker.close();
  await Promise.all([api.close(), forbidden.close()]);
});

describe('HTTP broker, framed (ccm_http_bytes)', () => {
  it('sends a binary body as it is and answers with the raw response bytes', async () => {
    const answer = await ask(
      requestFrame(head({ method: 'put', url: api.url('/echo'), headers: { 'X-Plugin': 'yes' } }), BINARY),
    );
    expect(answer.head).toMatchObject({
      status: 200,
      headers: { 'content-type': 'application/octet-stream', 'x-method': 'PUT', 'set-cookie': 'a=1, b=2' },
    });
    expect(answer.head).not.toHaveProperty('body');
    expect(answer.body.equals(BINARY)).toBe(true);
    const seen = api.seen.at(-1);
    expect(seen?.raw.equals(BINARY)).toBe(true);
    expect(seen?.headers['content-length']).toBe(String(BINARY.byteLength));
    expect(seen?.headers['x-plugin']).toBe('yes');
  });

  it('does not decode a response body that is not UTF-8', async () => {
    const answer = await ask(requestFrame(head({ url: api.url('/binary') })));
    expect(answer.head.status).toBe(200);
    expect(answer.body.equals(BINARY)).toBe(true);
  });

  it('sends no body for an empty one, and answers an empty response with an empty body', async () => {
    const answer = await ask(requestFrame(head({ url: api.url('/empty') })));
    expect(answer.head.status).toBe(204);
    expect(answer.body.byteLength).toBe(0);
    expect(api.seen.at(-1)?.headers['content-length']).toBeUndefined();
    expect(api.seen.at(-1)?.raw.byteLength).toBe(0);
  });

  it('keeps JSON text in the body unescaped', async () => {
    const text = JSON.stringify({ backends: Array.from({ length: 50 }, (_, i) => `i-${i}`), note: '"quoted" ☁' });
    const answer = await ask(requestFrame(head({ method: 'POST', url: api.url('/echo') }), Buffer.from(text)));
    expect(answer.body.toString('utf8')).toBe(text);
  });

  it('drops the body when a 303 turns the request into a GET', async () => {
    const answer = await ask(requestFrame(head({ method: 'PUT', url: api.url('/see-other') }), BINARY));
    expect(answer.head).toMatchObject({ status: 200, headers: { 'x-method': 'GET' } });
    expect(answer.body.byteLength).toBe(0);
  });

  it('answers policy failures with a framed error and an empty body', async () => {
    const before = forbidden.seen.length;
    const refused = await ask(requestFrame(head({ url: forbidden.url('/') })));
    expect(refused.head.error).toMatchObject({ code: 'Forbidden', message: expect.stringContaining('not allowed') });
    expect(refused.head).not.toHaveProperty('status');
    expect(refused.body.byteLength).toBe(0);
    expect(forbidden.seen.length).toBe(before);

    const large = await ask(requestFrame(head({ url: api.url('/big') })));
    expect(large.head.error).toMatchObject({ code: 'TooLarge', message: expect.stringContaining('1024 bytes') });
    expect(large.body.byteLength).toBe(0);

    const late = await ask(requestFrame(head({ url: api.url('/slow'), timeoutMs: 100 })));
    expect(late.head.error).toMatchObject({ code: 'Timeout', message: expect.stringContaining('within 100 ms') });
    const deadline = await ask(requestFrame(head({ url: api.url('/slow') })), AbortSignal.timeout(50));
    expect(deadline.head.error?.message).toContain("the call's deadline");
  });

  it('answers malformed frames with a framed Network error naming the problem', async () => {
    const cases: Array<[Uint8Array, string]> = [
      [new Uint8Array(0), 'the block is 0 bytes, shorter than the 4-byte head length'],
      [Uint8Array.of(1, 0, 0), 'the block is 3 bytes, shorter than the 4-byte head length'],
      [Uint8Array.of(9, 0, 0, 0, 0x7b, 0x7d), 'its head length 9 is larger than the 2 bytes after it'],
      [Uint8Array.of(0xff, 0xff, 0xff, 0xff), 'its head length 4294967295 is larger than the 0 bytes after it'],
      [requestFrame('{"method": "GET",'), 'request head is not UTF-8 JSON'],
      [Uint8Array.of(1, 0, 0, 0, 0xff), 'request head is not UTF-8 JSON'],
      [requestFrame(''), 'request head is not UTF-8 JSON'],
      [requestFrame({ method: 'GET' }), 'malformed ccm_http_bytes request: head.url: expected string'],
      [requestFrame(head({ timeoutMs: '5' })), 'head.timeoutMs'],
      [requestFrame(head({ headers: { a: 1 } })), 'head.headers'],
      [requestFrame([1, 2]), 'head: expected object'],
      [requestFrame('null'), 'head: expected object'],
      [requestFrame(head({ url: api.url('/echo'), body: 'x' })), 'the body goes after the head, not in it'],
      // Bounded before any parse: the main thread reads at most 64 KiB, 8 levels deep.
      [
        requestFrame(head({ url: api.url('/echo'), headers: { 'x-big': 'y'.repeat(64 * 1024) } })),
        'bytes is larger than the 65536 the host reads',
      ],
      [requestFrame(`${'['.repeat(9)}${']'.repeat(9)}`), 'its head nests deeper than 8 levels'],
      [requestFrame(head({ extra: [[[[[[[[1]]]]]]]] })), 'its head nests deeper than 8 levels'],
    ];
    for (const [frame, message] of cases) {
      const answer = await ask(frame);
      expect(answer.head.error, message).toMatchObject({ code: 'Network', message: expect.stringContaining(message) });
      expect(answer.body.byteLength).toBe(0);
    }
  });

  it('counts the nesting of the JSON, not brackets inside its strings', async () => {
    const bracketed = { 'x-brackets': '[[[[[[[[[[{{{{{{{{{{\\"[[[[' };
    const answer = await ask(requestFrame(head({ method: 'POST', url: api.url('/echo'), headers: bracketed })));
    expect(answer.head.status).toBe(200);
    expect(api.seen.at(-1)?.headers['x-brackets']).toBe(bracketed['x-brackets']);
  });

  it('takes the head length from the prefix, not from the end of the JSON', async () => {
    // The body starts with what would also parse as JSON: only the prefix says where the head ends.
    const answer = await ask(requestFrame(head({ method: 'POST', url: api.url('/echo') }), Buffer.from('{"x":1}')));
    expect(answer.body.toString()).toBe('{"x":1}');
  });

  it('builds frames that own their whole ArrayBuffer (js-sdk stores the whole buffer of a Uint8Array as the block)', () => {
    for (const frame of [errorFrame('TooLarge', 'x'), buildFrame('{"status":200,"headers":{}}', [BINARY, BINARY])]) {
      expect(frame.byteOffset).toBe(0);
      expect(frame.buffer.byteLength).toBe(frame.byteLength);
    }
    expect(readAnswerFrame(buildFrame('{"status":200,"headers":{}}', [BINARY, BINARY])).body).toEqual(
      Buffer.concat([BINARY, BINARY]),
    );
  });
});
