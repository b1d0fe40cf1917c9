// A hostile plugin with an allowed endpoint that reflects what it receives tries to read back the secrets the broker
// attached (a SigV4 signature, a bearer token) through channels other than the answer's headers and body.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../host/src/plugin/credentials/credential-store.ts';
import type { HttpBroker } from '../../../host/src/plugin/http/http-broker.ts';
import { type Route, type SeenRequest, startServer, type TestServer } from './support/http-servers.ts';
import { recordingLogger } from './support/recording-logger.ts';
import { testBroker } from './support/test-broker.ts';

const KEY = { accessKeyId: 'AKIAEXAMPLE000000001', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzzzzSECRET' };

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

let server: TestServer;
let broker: HttpBroker;
let store: CredentialStore;
const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-broker-leaks-'));

beforeAll(async () => {
  server = await startServer({
    '/status-line': statusLineEcho,
    '/header-line': headerLineEcho,
    '/gzip-echo': gzipEcho,
    '/always-gzip': alwaysGzipEcho,
  });
  writeFileSync(join(dir, 'id'), KEY.accessKeyId);
  writeFileSync(join(dir, 'secret'), KEY.secretAccessKey);
  const file = join(dir, 'credentials.json');
  const awsSigV4 = { accessKeyIdFile: 'id', secretAccessKeyFile: 'secret', region: 'us-east-1', service: 'ec2' };
  writeFileSync(file, JSON.stringify({ credentials: [{ name: 'aws', hosts: [server.host], awsSigV4 }] }));
  store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
  broker = testBroker([server.host], store, { maxResponseBytes: 1 << 20 });
});

afterAll(async () => {
  broker.close();
  store.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ask(path: string, headers: Record<string, string> = {}): Promise<string> {
  const request = { method: 'GET', url: server.url(path), headers, body: '', timeoutMs: 0 };
  const answer = await broker.handle(new TextEncoder().encode(JSON.stringify(request)), AbortSignal.timeout(5000));
  return new TextDecoder().decode(answer);
}

describe('secrets in the errors of a credentialed request', () => {
  it.each(['/status-line', '/header-line'])(
    'a parse error quoting the answer hides the signature (%s)',
    async (path) => {
      const answer = JSON.parse(await ask(path)) as { error?: { code: string; message: string } };
      const signature = signatureOf(server.seen.at(-1) as SeenRequest);
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
    const seen = server.seen.at(-1) as SeenRequest;
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
