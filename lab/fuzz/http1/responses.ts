// Response bytes for the HTTP/1.1 fuzzer: valid answers in every framing, and the framing edge cases a hostile or
// broken server sends. Each answer is tagged (an X-Tag header and the start of its body) with the request it
// answers, so that a client that hands it to another request is caught. Text is latin1: one char, one byte.
import type { Rng } from './rng.ts';

export interface BuiltAnswer {
  text: string;
  /** Where the first response ends by RFC 9112's rules: the server never pauses its writes after this point. */
  mainEnd: number;
  /** The server closes the connection after writing it (its body runs to the close, or it is cut short). */
  close: boolean;
  kind: string;
}

interface Parts {
  version: '1.0' | '1.1';
  status: string;
  headers: string[];
  body: string;
}

const EXTRA_HEADERS = [
  'Content-Type: application/json',
  'Set-Cookie: a=1',
  'Set-Cookie: b=2',
  'X-Empty:',
  'X-Spaces:   padded   ',
  'X-Tab:\tv\tw\t',
  'X-Obs: caf\xe9 \xff',
  'X-Nbsp: \xa0v\xa0',
  '__proto__: p',
  'constructor: c',
  'Date: Mon, 01 Jan 2024 00:00:00 GMT',
  'x-MiXed-Case: v',
  'Keep-Alive: timeout=5',
  'Vary: a, b',
];
const REASONS = ['OK', 'Fine', 'Some Reason Here', 'r\xe9son', ''];
const FILLER = 'abcdefghijklmnopqrstuvwxyz0123456789 {}":,\r\n';

function body(rng: Rng, tag: string): string {
  const length = rng.pick([0, 5, 40, 300, 2000]);
  let out = `<${tag}>`;
  const binary = rng.chance(0.2);
  for (let i = 0; i < length; i++) out += binary ? String.fromCharCode(rng.int(256)) : FILLER[rng.int(FILLER.length)];
  return out;
}

function baseParts(rng: Rng, tag: string, status = 200): Parts {
  const headers = [`X-Tag: ${tag}`];
  for (let n = rng.int(5); n > 0; n--) headers.push(rng.pick(EXTRA_HEADERS));
  if (rng.chance(0.05)) headers.push(`X-Long: ${'v'.repeat(rng.int(4000))}`);
  return { version: rng.chance(0.08) ? '1.0' : '1.1', status: String(status), headers, body: body(rng, tag) };
}

function statusLine(rng: Rng, p: Parts): string {
  const reason = rng.pick(REASONS);
  return reason === '' && rng.chance(0.5) ? `HTTP/${p.version} ${p.status}` : `HTTP/${p.version} ${p.status} ${reason}`;
}

function head(rng: Rng, p: Parts, framing: string[]): string {
  const lines = [...p.headers, ...framing];
  // Shuffle a little: framing fields need not come last.
  if (lines.length > 1 && rng.chance(0.5)) {
    const i = rng.int(lines.length);
    const j = rng.int(lines.length);
    [lines[i], lines[j]] = [lines[j] as string, lines[i] as string];
  }
  return `${statusLine(rng, p)}\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`;
}

/** The body in chunks of random sizes, with optional extensions, hex case, leading zeros and trailers. */
export function chunked(rng: Rng, text: string, last = true): string {
  let out = '';
  let at = 0;
  while (at < text.length) {
    const size = Math.min(text.length - at, 1 + rng.int(rng.pick([3, 50, 1000])));
    let hex = size.toString(16);
    if (rng.chance(0.2)) hex = hex.toUpperCase();
    if (rng.chance(0.1)) hex = `00${hex}`;
    const ext = rng.chance(0.1) ? rng.pick([';a', ';a=b', ';a="q;d"', ' ;a=1', ';a ; b']) : '';
    out += `${hex}${ext}\r\n${text.slice(at, at + size)}\r\n`;
    at += size;
  }
  if (!last) return out;
  const trailers = rng.chance(0.15) ? rng.pick(['X-T: 1\r\n', 'X-T: a\r\nX-U: b\r\n', 'Bad Trailer\r\n']) : '';
  return `${out}0${rng.chance(0.05) ? ';end' : ''}\r\n${trailers}\r\n`;
}

/** A valid answer to `method`, framed by Content-Length, chunked or the close. */
export function validAnswer(rng: Rng, method: string, tag: string): BuiltAnswer {
  const p = baseParts(rng, tag, rng.pick([200, 200, 201, 404, 500]));
  const noBody = method === 'HEAD';
  const framing = rng.pick(['length', 'length', 'chunked', 'close'] as const);
  if (framing === 'close' && !noBody) {
    const text = head(rng, p, []) + p.body;
    return { text, mainEnd: text.length, close: true, kind: 'valid-close' };
  }
  if (framing === 'chunked' && p.version === '1.1') {
    const h = head(rng, p, [rng.pick(['Transfer-Encoding: chunked', 'transfer-encoding: Chunked'])]);
    const text = h + (noBody ? '' : chunked(rng, p.body));
    return { text, mainEnd: text.length, close: false, kind: 'valid-chunked' };
  }
  const keep = p.version === '1.1' || rng.chance(0.5);
  const extra = p.version === '1.0' && keep ? ['Connection: keep-alive'] : [];
  const h = head(rng, p, [`Content-Length: ${p.body.length}`, ...extra]);
  const text = h + (noBody ? '' : p.body);
  return { text, mainEnd: text.length, close: !keep, kind: 'valid-length' };
}

type EdgeBuilder = (rng: Rng, method: string, tag: string) => BuiltAnswer;

const whole = (text: string, kind: string, close = false): BuiltAnswer => ({
  text,
  mainEnd: text.length,
  close,
  kind,
});

/** Framing edge cases: each is refused, or framed as RFC 9112 §6.3 says, by both clients or on the allow-list. */
export const EDGE_CASES: Record<string, EdgeBuilder> = {
  'cl-and-te': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const len = rng.chance(0.5) ? p.body.length : 3;
    return whole(
      head(rng, p, [`Content-Length: ${len}`, 'Transfer-Encoding: chunked']) + chunked(rng, p.body),
      'cl-and-te',
    );
  },
  'te-other': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const te = rng.pick([
      'gzip, chunked',
      'chunked, gzip',
      'identity',
      'chunked, chunked',
      'deflate',
      'chunked,',
      ', chunked',
    ]);
    const framed = te.trim().endsWith('chunked') || te === 'chunked,';
    return whole(
      head(rng, p, [`Transfer-Encoding: ${te}`]) + (framed ? chunked(rng, p.body) : p.body),
      'te-other',
      !framed,
    );
  },
  'te-split-fields': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const fields = rng
      .pick([
        ['gzip', 'chunked'],
        ['chunked', 'chunked'],
        ['chunked', ''],
      ])
      .map((v) => `Transfer-Encoding: ${v}`);
    return whole(head(rng, p, fields) + chunked(rng, p.body), 'te-split-fields');
  },
  'cl-odd': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const n = p.body.length;
    const fields = rng.pick([
      [`Content-Length: ${n}`, `Content-Length: ${n}`],
      [`Content-Length: ${n}`, `Content-Length: ${n + 1}`],
      [`Content-Length: ${n}, ${n}`],
      [`Content-Length: +${n}`],
      [`Content-Length: 0${n}`],
      [`Content-Length: ${n} `],
      ['Content-Length:'],
      [`Content-Length: 0x${n.toString(16)}`],
    ]);
    return whole(head(rng, p, fields) + p.body, 'cl-odd', true);
  },
  'cl-body-longer': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const cut = rng.int(p.body.length + 1);
    const h = head(rng, p, [`Content-Length: ${cut}`]);
    return { text: h + p.body + `surplus ${tag}`, mainEnd: h.length + cut, close: false, kind: 'cl-body-longer' };
  },
  'cl-body-shorter': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    return whole(
      head(rng, p, [`Content-Length: ${p.body.length + 1 + rng.int(50)}`]) + p.body,
      'cl-body-shorter',
      true,
    );
  },
  'no-body-status': (rng, _m, tag) => {
    const p = baseParts(rng, tag, rng.pick([204, 304]));
    const framing = rng.pick([[], ['Content-Length: 5'], ['Transfer-Encoding: chunked']]);
    const h = head(rng, p, framing);
    const surplus = rng.chance(0.5) ? chunked(rng, p.body) : '';
    return { text: h + surplus, mainEnd: h.length, close: false, kind: 'no-body-status' };
  },
  interim: (rng, method, tag) => {
    let prefix = '';
    for (let n = 1 + rng.int(2); n > 0; n--) {
      prefix += rng.pick([
        'HTTP/1.1 100 Continue\r\n\r\n',
        'HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n',
        'HTTP/1.1 102 Processing\r\n\r\n',
      ]);
    }
    const rest = validAnswer(rng, method, tag);
    return { ...rest, text: prefix + rest.text, mainEnd: prefix.length + rest.mainEnd, kind: 'interim' };
  },
  'bad-field': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const bad = rng.pick([
      'X-Bad: a\0b',
      'X-Bad: a\rb',
      'X-Bad: a\nb',
      'X-Bad: a\x7fb',
      'X-Bad: a\x01b',
      'X-Bad: \x1f',
      'X-Bad : b',
      'X Bad: b',
      ' X-Folded: b',
      ':nameless',
      'X-B\0ad: b',
      'X-Bad: a\r\n\tfolded',
      'X-Bad\tb: c',
    ]);
    return whole(
      head(rng, { ...p, headers: [...p.headers, bad] }, [`Content-Length: ${p.body.length}`]) + p.body,
      'bad-field',
    );
  },
  'bad-status': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const line = rng.pick([
      'HTTP/1.1 600 Odd',
      'HTTP/1.1 099 Low',
      'HTTP/1.1 1000 Long',
      'HTTP/1.1 20 Short',
      'HTTP/1.1 2x0 Hex',
      'HTTP/1.2 200 OK',
      'HTTP/2.0 200 OK',
      'HTTP/1.1  200 OK',
      'http/1.1 200 OK',
      'HTTP/1.1 200 O\x01K',
      'HTTP/1.1 200 OK\x7f',
      'ICY 200 OK',
      'HTTP/1.1 101 Switching Protocols',
    ]);
    const h = `${line}\r\n${[...p.headers, `Content-Length: ${p.body.length}`].map((l) => `${l}\r\n`).join('')}\r\n`;
    // After a 101 the bytes are another protocol's: the answer ends with its head.
    const mainEnd = line.includes(' 101 ') ? h.length : h.length + p.body.length;
    return { text: h + p.body, mainEnd, close: true, kind: 'bad-status' };
  },
  'connection-close': (rng, method, tag) => {
    const rest = validAnswer(rng, method, tag);
    const at = rest.text.indexOf('\r\n') + 2;
    const text = `${rest.text.slice(0, at)}Connection: ${rng.pick(['close', 'Close', 'keep-alive, close'])}\r\n${rest.text.slice(at)}`;
    return { text, mainEnd: rest.mainEnd + text.length - rest.text.length, close: true, kind: 'connection-close' };
  },
  'http10-chunked': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const text =
      head(rng, { ...p, version: '1.0' }, ['Transfer-Encoding: chunked', 'Connection: keep-alive']) +
      chunked(rng, p.body);
    return whole(text, 'http10-chunked', true);
  },
  'chunk-odd': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const line = rng.pick([
      '2 ',
      ' 2',
      '2;',
      '2;=x',
      '-2',
      '2\t',
      'g',
      '0000000000000000002',
      '2;a="unterminated',
      '2;a=b c',
    ]);
    return whole(`${head(rng, p, ['Transfer-Encoding: chunked'])}${line}\r\nok\r\n0\r\n\r\n`, 'chunk-odd', true);
  },
  'chunk-data-mismatch': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const data = rng.pick(['2\r\nokk\r\n0\r\n\r\n', '3\r\nok\r\n0\r\n\r\n', '2\r\nok0\r\n\r\n', '2\r\nok\n0\r\n\r\n']);
    return whole(`${head(rng, p, ['Transfer-Encoding: chunked'])}${data}`, 'chunk-data-mismatch', true);
  },
  'chunk-truncated': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    return whole(head(rng, p, ['Transfer-Encoding: chunked']) + chunked(rng, p.body, false), 'chunk-truncated', true);
  },
  'big-head': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const big = `X-Big: ${'b'.repeat(70 * 1024 + rng.int(30 * 1024))}`;
    return whole(head(rng, { ...p, headers: [...p.headers, big] }, ['Content-Length: 0']), 'big-head', true);
  },
  'big-trailers': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    const trailers = 'X-T: y\r\n'.repeat(9000);
    return whole(
      `${head(rng, p, ['Transfer-Encoding: chunked'])}2\r\nok\r\n0\r\n${trailers}\r\n`,
      'big-trailers',
      true,
    );
  },
  'lf-only': (rng, _m, tag) => {
    const p = baseParts(rng, tag);
    return whole(head(rng, p, [`Content-Length: ${p.body.length}`]).replaceAll('\r\n', '\n') + p.body, 'lf-only', true);
  },
};
