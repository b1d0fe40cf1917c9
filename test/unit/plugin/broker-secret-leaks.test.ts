// A hostile plugin with an allowed endpoint that reflects what it receives tries to read back the secrets the broker
// attached (a SigV4 signature, a bearer token) through channels other than the answer's headers and body as sent:
// parse errors that quote the answer, compression, encodings of the echo (JSON escapes, percent-encoding, HTML
// entities, base64), and an earlier request's signature kept by a request bin.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import type { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import { REDACTED } from '../../../host/src/plugin/broker/redact.ts';
import { type Route, type SeenRequest, startServer, type TestServer } from './support/http-servers.ts';
import { recordingLogger } from './support/recording-logger.ts';
import { type SigV4Broker, startSigV4Broker } from './support/sigv4-broker.ts';
import { testBroker } from './support/test-broker.ts';

function signatureOf(req: SeenRequest): string {
  return /Signature=([0-9a-f]{64})/.exec(String(req.headers.authorization))?.[1] ?? 'unsigned';
}

// Answers with a status line made of the request's signature: the client's parse error quotes the line.
const statusLineEcho: Route = (req, res) => {
  res.socket?.end(`${signatureOf(req)}\r\n\r\n`);
};

// A header line without a colon, made of the signature: the client's parse error quotes that line too.
const headerLineEcho: Route = (req, res) => {
  res.socket?.end(`HTTP/1.1 200 OK\r\n${signatureOf(req)}\r\ncontent-length: 0\r\n\r\n`);
};

// Reflects the request headers, compressed when the client accepts gzip (as a server behind a compressing proxy).
const gzipEcho: Route = (req, res) => {
  const body = Buffer.from(JSON.stringify(req.headers));
  if (!String(req.headers['accept-encoding'] ?? '').includes('gzip')) return void res.end(body);
  res.setHeader('content-encoding', 'gzip');
  res.end(gzipSync(body));
};

// A header line without a colon: 60 bytes, then the signature; the parse error quotes the line's first 80 bytes.
const partialHeaderLineEcho: Route = (req, res) => {
  res.socket?.end(`HTTP/1.1 200 OK\r\n${'x'.repeat(60)}${signatureOf(req)}\r\ncontent-length: 0\r\n\r\n`);
};

// A request bin: /store keeps the request's Authorization, /dump shows the one kept.
let kept = '';
const storeAuthorization: Route = (req, res) => {
  kept = String(req.headers.authorization);
  res.end('stored');
};
const dumpAuthorization: Route = (_req, res) => res.end(JSON.stringify({ previous: kept }));

// Compresses whatever the client asked for.
const alwaysGzipEcho: Route = (req, res) => {
  res.setHeader('content-encoding', 'gzip');
  res.end(gzipSync(JSON.stringify(req.headers)));
};

let env: SigV4Broker;

beforeAll(async () => {
  env = await startSigV4Broker({
    '/status-line': statusLineEcho,
    '/header-line': headerLineEcho,
    '/gzip-echo': gzipEcho,
    '/always-gzip': alwaysGzipEcho,
    '/partial-header-line': partialHeaderLineEcho,
    '/store': storeAuthorization,
    '/dump': dumpAuthorization,
  });
});

afterAll(() => env.close());

async function ask(path: string, headers: Record<string, string> = {}): Promise<string> {
  const request = { method: 'GET', url: env.server.url(path), headers, body: '', timeoutMs: 0 };
  const answer = await env.broker.handle(new TextEncoder().encode(JSON.stringify(request)), AbortSignal.timeout(5000));
  return new TextDecoder().decode(answer);
}

describe('secrets in the errors of a credentialed request', () => {
  it.each(['/status-line', '/header-line'])(
    'a parse error quoting the answer hides the signature (%s)',
    async (path) => {
      const answer = JSON.parse(await ask(path)) as { error?: { code: string; message: string } };
      const signature = signatureOf(env.server.seen.at(-1) as SeenRequest);
      expect(signature).toMatch(/^[0-9a-f]{64}$/);
      // The parse error happened and says so; only the secret in it is gone.
      expect(answer.error?.code).toBe('Network');
      expect(answer.error?.message).toMatch(/malformed/);
      expect(answer.error?.message).not.toContain(signature);
    },
  );

  it('a parse error quoting the first bytes of a reflected header quotes nothing of the secret', async () => {
    const answer = JSON.parse(await ask('/partial-header-line')) as { error?: { code: string; message: string } };
    const signature = signatureOf(env.server.seen.at(-1) as SeenRequest);
    expect(answer.error?.code).toBe('Network');
    expect(answer.error?.message).toMatch(/malformed/);
    // 20 of its 64 characters would fit in the quote: not a whole secret, which exact matching would miss.
    expect(answer.error?.message).not.toContain(signature.slice(0, 16));
  });
});

describe("an earlier request's signature", () => {
  it('is redacted from a later answer that shows it (a request bin)', async () => {
    await ask('/store');
    const stored = env.server.seen.at(-1) as SeenRequest;
    const answer = JSON.parse(await ask('/dump')) as { body: string };
    const dump = env.server.seen.at(-1) as SeenRequest;
    expect(signatureOf(dump)).not.toBe(signatureOf(stored));
    expect(answer.body).not.toContain(signatureOf(stored));
    expect(answer.body).toContain(REDACTED);
  });
});

describe('compressed answers to a credentialed request', () => {
  it('asks for an uncompressed answer, which the redactor can read', async () => {
    const answer = JSON.parse(await ask('/gzip-echo', { 'Accept-Encoding': 'gzip' })) as { body: string };
    const seen = env.server.seen.at(-1) as SeenRequest;
    expect(seen.headers['accept-encoding']).toBe('identity');
    expect(String(seen.headers.authorization)).toContain('accept-encoding;');
    expect(answer.body).toContain('"authorization":"[REDACTED]"');
    expect(answer.body).not.toContain(signatureOf(seen));
  });

  it('refuses an answer compressed anyway, whose secrets it cannot see', async () => {
    const answer = JSON.parse(await ask('/always-gzip')) as { error?: { code: string; message: string } };
    expect(answer.error?.code).toBe('Network');
    expect(answer.error?.message).toMatch(/content-encoding gzip/);
  });
});

// A bearer token with the characters encoders escape: '/', '+', '=', '&', '<', '"', "'".
const TOKEN = `tok/en+with=all&the<specials>"here'${'z'.repeat(8)}`;

const escapeAllButAlphanumerics = (text: string, escape: (c: string) => string): string =>
  [...text].map((c) => (/[A-Za-z0-9]/.test(c) ? c : escape(c))).join('');
const unicodeEscape = (c: string, upper = false): string => {
  const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
  return `\\u${upper ? hex.toUpperCase() : hex}`;
};

// Each reflects the request's Authorization header as some encoder would write it.
const encodings: Record<string, (authorization: string) => string> = {
  // PHP's json_encode: '/' as '\/'.
  'JSON, slashes escaped': (a) => JSON.stringify({ auth: a }).replace(/\//g, '\\/'),
  // .NET's System.Text.Json: '+', '&', '<', '>', "'" and '"' as \u00XX, upper-case hex.
  'JSON, HTML-sensitive characters escaped': (a) =>
    `{"auth":"${a.replace(/[+&<>'"]/g, (c) => unicodeEscape(c, true))}"}`,
  'JSON, every non-alphanumeric as \\u00xx': (a) =>
    `{"auth":"${escapeAllButAlphanumerics(a, (c) => unicodeEscape(c))}"}`,
  'percent-encoded (a query string)': (a) => `auth=${encodeURIComponent(a)}`,
  'percent-encoded, lower-case hex': (a) =>
    `auth=${encodeURIComponent(a).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}`,
  'form-encoded, spaces as +': (a) => `auth=${encodeURIComponent(a).replace(/%20/g, '+')}`,
  'HTML entities (an error page)': (a) =>
    `<p>${a.replace(/[&<>"'/]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '/': '&#x2F;' })[c] as string)}</p>`,
  'HTML numeric entities of every non-alphanumeric': (a) =>
    escapeAllButAlphanumerics(a, (c) => `&#${c.charCodeAt(0)};`),
  'base64 of the whole echo': (a) => Buffer.from(JSON.stringify({ headers: { authorization: a } })).toString('base64'),
  'base64url of the echo, shifted by one byte': (a) => Buffer.from(`x${a}`).toString('base64url'),
};

describe('a secret reflected in an encoding', () => {
  let server: TestServer;
  let broker: HttpBroker;
  let store: CredentialStore;
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-leaks-'));

  beforeAll(async () => {
    const routes: Record<string, Route> = {};
    for (const [name, encode] of Object.entries(encodings)) {
      const answer = (req: SeenRequest): string => encode(String(req.headers.authorization));
      routes[`/body/${encodeURIComponent(name)}`] = (req, res) => res.end(answer(req));
      routes[`/header/${encodeURIComponent(name)}`] = (req, res) => res.setHeader('x-echo', answer(req)).end('ok');
    }
    server = await startServer(routes);
    const file = join(dir, 'credentials.json');
    const entry = { name: 'api', hosts: [server.host], bearerToken: TOKEN, insecure: true };
    writeFileSync(file, JSON.stringify({ credentials: [entry] }));
    store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
    broker = testBroker([server.host], store, { maxResponseBytes: 1 << 20 });
  });

  afterAll(async () => {
    broker.close();
    store.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(Object.keys(encodings))('is redacted: %s, in the body and in a header', async (name) => {
    for (const where of ['body', 'header']) {
      const url = server.url(`/${where}/${encodeURIComponent(name)}`);
      const request = { method: 'GET', url, headers: {}, body: '', timeoutMs: 0 };
      const bytes = await broker.handle(new TextEncoder().encode(JSON.stringify(request)), AbortSignal.timeout(5000));
      const answer = JSON.parse(new TextDecoder().decode(bytes)) as { body: string; headers: Record<string, string> };
      const echoed = (encodings[name] as (a: string) => string)(`Bearer ${TOKEN}`);
      const seen = where === 'body' ? answer.body : String(answer.headers['x-echo']);
      expect(server.seen.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(seen).not.toBe(echoed);
      expect(seen).toContain(REDACTED);
      // Not even the token's longest run of letters and digits is left.
      expect(seen).not.toContain('zzzzzzzz');
    }
  });
});
