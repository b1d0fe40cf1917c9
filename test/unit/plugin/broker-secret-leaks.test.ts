// A hostile plugin with an allowed endpoint that reflects what it receives tries to read back the secrets the broker
// attached (a SigV4 signature, a bearer token) through channels other than the answer's headers and body.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route, SeenRequest } from './support/http-servers.ts';
import { type SigV4Broker, startSigV4Broker } from './support/sigv4-broker.ts';

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
