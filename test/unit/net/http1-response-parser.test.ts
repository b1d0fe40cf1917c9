import { describe, expect, it } from 'vitest';
import {
  MAX_HEAD_BYTES,
  type ResponseHead,
  ResponseParseError,
  ResponseParser,
} from '../../../host/src/net/http1/response-parser.ts';

interface Parsed {
  head: ResponseHead | undefined;
  body: string;
  ended: boolean;
  keepAlive: boolean | undefined;
}

function parser(method = 'GET'): { p: ResponseParser; out: Parsed } {
  const p = new ResponseParser();
  const out: Parsed = { head: undefined, body: '', ended: false, keepAlive: undefined };
  p.expect(method, {
    onHead: (h) => (out.head = h),
    onData: (c) => (out.body += c.toString('latin1')),
    onEnd: (k) => {
      out.ended = true;
      out.keepAlive = k;
    },
  });
  return { p, out };
}

/** Feeds `text` in pieces cut at `cuts` (byte offsets). */
function feed(p: ResponseParser, text: string, cuts: number[] = []): void {
  const bytes = Buffer.from(text, 'latin1');
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    p.push(bytes.subarray(from, cut));
    from = cut;
  }
}

const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n';
const LENGTH = 'HTTP/1.1 201 Created\r\nContent-Length: 11\r\nSet-Cookie: a\r\nset-cookie: b\r\n\r\nhello world';

describe('ResponseParser', () => {
  it('reads a Content-Length answer: status, lower-case headers, repeated headers as an array, body', () => {
    const { p, out } = parser();
    feed(p, LENGTH);
    expect(out.head).toEqual({ statusCode: 201, headers: { 'content-length': '11', 'set-cookie': ['a', 'b'] } });
    expect(out.body).toBe('hello world');
    expect(out).toMatchObject({ ended: true, keepAlive: true });
    expect(p.busy).toBe(false);
  });

  it('reads a chunked answer with chunk extensions and trailers', () => {
    const { p, out } = parser();
    feed(p, CHUNKED);
    expect(out.body).toBe('hello world');
    expect(out).toMatchObject({ ended: true, keepAlive: true });
  });

  // Every split point of the input, including inside "\r\n\r\n" and the chunk size lines.
  it.each([
    ['content-length', LENGTH],
    ['chunked', CHUNKED],
  ])('gives the same result for a %s answer cut at any byte, or at every byte', (_name, text) => {
    for (let cut = 1; cut < text.length; cut++) {
      const { p, out } = parser();
      feed(p, text, [cut]);
      expect(out.body, `cut at ${cut}`).toBe('hello world');
      expect(out.ended).toBe(true);
    }
    const { p, out } = parser();
    feed(
      p,
      text,
      Array.from({ length: text.length - 1 }, (_, i) => i + 1),
    );
    expect(out.body).toBe('hello world');
    expect(out.ended).toBe(true);
  });

  it('hands on the body pieces of one push as one chunk, whatever the chunk sizes', () => {
    const p = new ResponseParser();
    const chunks: string[] = [];
    let ended = false;
    p.expect('GET', { onHead: () => {}, onData: (c) => chunks.push(c.toString()), onEnd: () => (ended = true) });
    const body = 'abcdefghijklmnopqrstuvwxyz'.repeat(40);
    const wire = [...body].map((c) => `1\r\n${c}\r\n`).join('');
    feed(p, `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${wire}00a;x="y"\r\n0123456789\r\n0\r\n\r\n`);
    expect(chunks).toEqual([`${body}0123456789`]);
    expect(ended).toBe(true);
  });

  it('reads chunk sizes of up to 13 significant hex digits, in either case, with leading zeros', () => {
    const { p, out } = parser();
    feed(
      p,
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000003\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n',
    );
    expect(out.body).toBe('abc0123456789');
    expect(() => feed(parser().p, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000\r\n')).toThrow(
      expect.objectContaining({ reason: 'chunk-size' }),
    );
    expect(() => feed(parser().p, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n')).toThrow(
      expect.objectContaining({ reason: 'chunk-data' }),
    );
  });

  it('has no body for HEAD, 204 and 304, whatever Content-Length says', () => {
    for (const [method, text] of [
      ['HEAD', 'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n'],
      ['GET', 'HTTP/1.1 204 No Content\r\n\r\n'],
      ['GET', 'HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n'],
    ] as const) {
      const { p, out } = parser(method);
      feed(p, text);
      expect(out).toMatchObject({ ended: true, body: '', keepAlive: true });
    }
  });

  it('skips 1xx answers before the real one', () => {
    const { p, out } = parser();
    feed(p, `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\n${LENGTH}`);
    expect(out.head?.statusCode).toBe(201);
    expect(out.body).toBe('hello world');
  });

  it('reads a body without length to the end of the connection, and then does not keep it', () => {
    const { p, out } = parser();
    feed(p, 'HTTP/1.1 200 OK\r\n\r\npart one, ');
    feed(p, 'part two');
    expect(out.ended).toBe(false);
    p.end();
    expect(out).toMatchObject({ ended: true, keepAlive: false, body: 'part one, part two' });
  });

  it('does not keep a connection the server closes, or an HTTP/1.0 one without keep-alive', () => {
    for (const [text, keep] of [
      ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', false],
      ['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', false],
      ['HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n', true],
    ] as const) {
      const { p, out } = parser();
      feed(p, text);
      expect(out.keepAlive, text).toBe(keep);
    }
  });

  it('takes the next answer after expect() again', () => {
    const { p, out } = parser();
    feed(p, LENGTH);
    const second: string[] = [];
    p.expect('GET', { onHead: () => {}, onData: (c) => second.push(c.toString()), onEnd: () => second.push('|') });
    feed(p, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect(out.body).toBe('hello world');
    expect(second).toEqual(['ok', '|']);
  });

  it('refuses what it cannot frame unambiguously', () => {
    const cases: [string, RegExp][] = [
      ['HTTP/2 200 OK\r\n\r\n', /status line/],
      ['HTTP/1.1 99 Odd\r\n\r\n', /status line/],
      ['garbage\r\n\r\n', /status line/],
      ['HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', /header line/],
      ['HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n', /header line/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n', /content-length/],
      ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /content-length/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n', /transfer-encoding/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk size/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n', /chunk data longer/],
      ['HTTP/1.1 101 Switching Protocols\r\n\r\n', /101/],
    ];
    for (const [text, message] of cases) {
      const { p } = parser();
      expect(() => feed(p, text), text).toThrow(message);
    }
  });

  it('refuses a second Content-Length, even an identical one (as llhttp does)', () => {
    const { p } = parser();
    expect(() => feed(p, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok')).toThrow(
      expect.objectContaining({ reason: 'content-length' }),
    );
  });

  it('reports the end only once push() has consumed its input: bytes past the end are refused, not kept', () => {
    const p = new ResponseParser();
    const seen: string[] = [];
    const sink = {
      onHead: () => {},
      onData: (c: Buffer) => seen.push(c.toString()),
      // Whoever hears of the end may ask for the next answer at once, as the pool does.
      onEnd: () => {
        seen.push('|');
        p.expect('GET', sink);
      },
    };
    p.expect('GET', sink);
    feed(p, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect(seen).toEqual(['ok', '|']);
    expect(() => feed(p, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n')).toThrow(
      expect.objectContaining({ reason: 'unexpected-data', message: '19 bytes after the end of the response' }),
    );
    expect(seen).toEqual(['ok', '|', 'ok']);
  });

  it('refuses a head over the limit, whether or not its end arrived', () => {
    const long = `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}`;
    const { p } = parser();
    expect(() => feed(p, long)).toThrow(ResponseParseError);
    const { p: q } = parser();
    expect(() => feed(q, `${long}\r\n\r\n`)).toThrow(/longer than/);
  });

  it('refuses bytes with no request outstanding, and a connection that closes mid-answer', () => {
    const { p } = parser();
    feed(p, LENGTH);
    expect(() => feed(p, 'HTTP/1.1 200 OK\r\n')).toThrow(/no request outstanding/);
    const { p: q } = parser();
    feed(q, 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
    expect(() => q.end()).toThrow(/closed before the response ended/);
  });
});
