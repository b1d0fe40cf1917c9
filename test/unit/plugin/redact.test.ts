// The redactor against the encoders that reflect text: for random secrets (any printable ASCII, non-ASCII and
// characters past U+FFFF), each written by a real encoder (JSON.stringify and its escaping variants, percent-encoding,
// HTML escaping, base64 of the whole echo) inside other text, the redacted answer decoded the encoder's way no longer
// holds the secret. And the signatures of earlier requests, found by shape.
import { describe, expect, it } from 'vitest';
import {
  MAX_REMEMBERED,
  RecentSignatures,
  SIGNATURE_LIFETIME_MS,
} from '../../../host/src/plugin/broker/recent-signatures.ts';
import { REDACTED, SecretRedactor } from '../../../host/src/plugin/broker/redact.ts';
import { base64Pieces } from '../../../host/src/plugin/broker/secret-forms.ts';

// A small deterministic generator (mulberry32), so a failure names its seed.
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~ ',
  'é',
  'ß',
  '☁',
  '😀',
];

function secretOf(next: () => number, minLength: number): string {
  const length = minLength + Math.floor(next() * 30);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return out;
}

const everyNonAlphanumeric = (text: string, escape: (c: string) => string): string =>
  [...text].map((c) => (/[A-Za-z0-9]/.test(c) ? c : escape(c))).join('');
const jsonUnit = (c: string, upper: boolean): string =>
  [...Array(c.length).keys()]
    .map((i) => {
      const hex = c.charCodeAt(i).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    })
    .join('');
const htmlUnescape = (text: string): string =>
  text
    .replace(/&#[xX]([0-9a-fA-F]+);/g, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&(amp|lt|gt|quot|apos|sol|plus|equals);/g, (_m, n: string) => {
      const named: Record<string, string> = {
        amp: '&',
        lt: '<',
        gt: '>',
        quot: '"',
        apos: "'",
        sol: '/',
        plus: '+',
        equals: '=',
      };
      return named[n] as string;
    });

interface Encoder {
  encode: (text: string) => string;
  decode: (text: string) => string;
}

// Each writes `{"echo": <secret>}`-like text the way a server reflecting a request would.
const ENCODERS: Record<string, Encoder> = {
  'JSON.stringify': { encode: (t) => JSON.stringify({ echo: t }), decode: (t) => JSON.stringify(JSON.parse(t)) },
  'JSON, slashes escaped': {
    encode: (t) => JSON.stringify({ echo: t }).replace(/\//g, '\\/'),
    decode: (t) => JSON.stringify(JSON.parse(t)),
  },
  'JSON, ASCII only (Python)': {
    encode: (t) => JSON.stringify({ echo: t }).replace(/[^\x20-\x7e]/gu, (c) => jsonUnit(c, false)),
    decode: (t) => JSON.stringify(JSON.parse(t)),
  },
  'JSON, every non-alphanumeric escaped, upper case': {
    encode: (t) => `{"echo":"${everyNonAlphanumeric(t, (c) => jsonUnit(c, true))}"}`,
    decode: (t) => JSON.stringify(JSON.parse(t)),
  },
  encodeURIComponent: { encode: (t) => `q=${encodeURIComponent(t)}&x=1`, decode: (t) => decodeURIComponent(t) },
  'form encoding': {
    encode: (t) => `q=${encodeURIComponent(t).replace(/%20/g, '+')}`,
    decode: (t) => decodeURIComponent(t.replace(/\+/g, ' ')),
  },
  'HTML escaping': {
    encode: (t) =>
      `<pre>${t.replace(/[&<>"'/]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '/': '&#x2F;' })[c] as string)}</pre>`,
    decode: htmlUnescape,
  },
  'HTML references of every non-alphanumeric': {
    encode: (t) => everyNonAlphanumeric(t, (c) => `&#${c.codePointAt(0)};`),
    decode: htmlUnescape,
  },
  'base64 of a JSON echo': {
    encode: (t) => Buffer.from(JSON.stringify({ echo: t })).toString('base64'),
    decode: (t) => Buffer.from(t, 'base64').toString('utf8'),
  },
  'base64url after a prefix of one byte': {
    encode: (t) => Buffer.from(`#${t}`).toString('base64url'),
    decode: (t) => Buffer.from(t, 'base64url').toString('utf8'),
  },
  'base64 after a prefix of two bytes': {
    encode: (t) => Buffer.from(`##${t}`).toString('base64'),
    decode: (t) => Buffer.from(t, 'base64').toString('utf8'),
  },
};

// Decoding may fail once a piece is replaced (base64, an escape cut short): then nothing of it is readable.
function decodedOrEmpty(decode: (text: string) => string, text: string): string {
  try {
    return decode(text);
  } catch {
    return '';
  }
}

describe('a secret written by an encoder', () => {
  it.each(Object.keys(ENCODERS))('%s: 300 random secrets, none left once decoded, in a body and as text', (name) => {
    const { encode, decode } = ENCODERS[name] as Encoder;
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      // base64 runs are looked for in secrets of 7 bytes or more (shorter ones would match unrelated base64).
      const secret = secretOf(next, name.startsWith('base64') ? 7 : 4);
      const redactor = new SecretRedactor([secret]);
      const answer = `before ${encode(secret)} after`;
      const asText = redactor.text(answer);
      const asBody = Buffer.concat(redactor.body([Buffer.from(answer, 'utf8')])).toString('utf8');
      for (const redacted of [asText, asBody]) {
        expect(redacted, `seed ${seed}: ${JSON.stringify(secret)}`).toContain(REDACTED);
        const decoded = decodedOrEmpty(decode, redacted.slice('before '.length, redacted.length - ' after'.length));
        expect(decoded, `seed ${seed}: ${JSON.stringify(secret)}`).not.toContain(secret);
      }
    }
  });

  it('leaves other text alone, and what is too short to tell from text', () => {
    const redactor = new SecretRedactor(['s3cr/t', 'abc']);
    expect(redactor.text('S3CR/T s3cr-t s3cr t abc')).toBe('S3CR/T s3cr-t s3cr t abc');
    expect(redactor.text('x s3cr%2Ft y')).toBe(`x ${REDACTED} y`);
    const chunks = [Buffer.from('nothing here')];
    expect(redactor.body(chunks)).toBe(chunks);
  });

  it("hides vSphere's password and sessions as SOAP and REST answers show them", () => {
    // A vsphere login's secrets (vsphere-flow.ts): the password, basic auth's base64, the quoted cookie and its value,
    // the REST session id.
    const password = `p&<"'>s3cret`;
    const basic = Buffer.from(`ccm:${password}`).toString('base64');
    const cookie = '"52a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f"';
    const restId = 'bd272ede-7f3e-4410-b284-4794a792bd04';
    const redactor = new SecretRedactor([password, basic, cookie, cookie.slice(1, -1), restId]);
    const soap = `<returnval><key>${cookie.slice(1, -1)}</key><password>p&amp;&lt;&quot;&#39;&gt;s3cret</password></returnval>`;
    expect(redactor.text(soap)).toBe(`<returnval><key>${REDACTED}</key><password>${REDACTED}</password></returnval>`);
    expect(redactor.text(`Cookie: vmware_soap_session=${cookie}`)).toBe(`Cookie: vmware_soap_session=${REDACTED}`);
    expect(redactor.text(`{"value":"${restId}","auth":"Basic ${basic}"}`)).toBe(
      `{"value":"${REDACTED}","auth":"Basic ${REDACTED}"}`,
    );
  });

  it("finds a request's one-time values as sent, and the signature's base64", () => {
    const signature = 'ab'.repeat(32);
    const redactor = new SecretRedactor([], [`AWS4-HMAC-SHA256 Signature=${signature}`, signature]);
    expect(redactor.text(`x AWS4-HMAC-SHA256 Signature=${signature} y`)).toBe(`x ${REDACTED} y`);
    const encoded = Buffer.from(`{"h":"Signature=${signature}"}`).toString('base64');
    expect(redactor.text(encoded)).toContain(REDACTED);
    expect(base64Pieces(signature).every((piece) => piece.length >= 12)).toBe(true);
  });
});

describe('signatures attached earlier', () => {
  const sig = (n: number): string => n.toString(16).padStart(64, '0');

  it('are found as a run of 64 hex digits of either case, alone or at the edge of a longer run', () => {
    const recent = new RecentSignatures();
    recent.add(sig(1));
    const upper = sig(1).toUpperCase();
    expect(recent.redact(`a "${sig(1)}" b`, REDACTED)).toBe(`a "${REDACTED}" b`);
    expect(recent.redact(`Signature%3D${upper}%2C`, REDACTED)).toBe(`Signature%3D${REDACTED}%2C`);
    expect(recent.redact(`\\u003d${sig(1)}\\u002c`, REDACTED)).toBe(`\\u003d${REDACTED}\\u002c`);
    // Inside a run of up to 256 digits, anywhere.
    expect(recent.redact(`ff${sig(1)}ee`, REDACTED)).toBe(`ff${REDACTED}ee`);
    expect(recent.redact(`${sig(1)}${sig(1)}`, REDACTED)).toBe(`${REDACTED}${REDACTED}`);
    expect(recent.redact(`x ${sig(2)} y`, REDACTED)).toBe(`x ${sig(2)} y`);
  });

  it('are forgotten after their lifetime, and beyond the cap oldest first', () => {
    let now = 0;
    const recent = new RecentSignatures(() => now);
    recent.add(sig(1));
    now += SIGNATURE_LIFETIME_MS - 1;
    expect(recent.redact(sig(1), REDACTED)).toBe(REDACTED);
    now += 1;
    expect(recent.redact(sig(1), REDACTED)).toBe(sig(1));
    for (let i = 0; i <= MAX_REMEMBERED; i++) recent.add(sig(10 + i));
    expect(recent.size).toBe(MAX_REMEMBERED);
    expect(recent.redact(sig(10), REDACTED)).toBe(sig(10));
    expect(recent.redact(sig(11), REDACTED)).toBe(REDACTED);
  });
});

describe('the cost of a scan', () => {
  const MiB = 1 << 20;
  const KEY = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzzzzSECRET';
  const TOKEN = 'FQoGZXIvYXdzEJr//////////wEaDOExampleSessionToken+/==';
  // Answers made to be slow to scan: runs of what the spellings and the signature search look at.
  const hostile: Record<string, () => string> = {
    'leading zeros of character references': () => `&#x${'0'.repeat(8 * MiB)}`,
    'percent-escapes': () => '%2'.repeat(4 * MiB),
    'JSON escapes': () => '\\u002'.repeat((8 * MiB) / 6),
    slashes: () => '/'.repeat(8 * MiB),
    "a secret's anchor repeated": () => 'wJalrXUtnFEMI'.repeat((8 * MiB) / 13),
    "a secret's rest, without its start, repeated": () => 'K7MDENG+bPxRfiCYzzzzSECRET'.repeat((8 * MiB) / 26),
    'hex digits': () => 'a'.repeat(8 * MiB),
    '63 hex digits and a dot': () => `${'b'.repeat(63)}.`.repeat((8 * MiB) / 64),
  };

  // CPU time, not wall time: the machine may be busy. The least of three scans of the same answer, as a plugin asking
  // for it again and again would have them: the first also pays for compiling the scan's code, and any of them may
  // pay for a collection of what earlier tests left on the heap.
  it.each(Object.keys(hostile))('stays under 100 ms of CPU for 8 MiB of %s', (name) => {
    const recent = new RecentSignatures();
    recent.add('ab'.repeat(32));
    const redactor = new SecretRedactor([KEY, TOKEN], [`Signature=${'cd'.repeat(32)}`, 'cd'.repeat(32)], recent);
    const body = Buffer.from((hostile[name] as () => string)(), 'latin1');
    let least = Infinity;
    for (let i = 0; i < 3; i++) {
      const before = process.threadCpuUsage();
      redactor.body([body]);
      const used = process.threadCpuUsage(before);
      least = Math.min(least, (used.user + used.system) / 1000);
    }
    expect(least).toBeLessThan(100);
  });
});
