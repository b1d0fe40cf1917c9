import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import { HostAllowList } from '../../../host/src/plugin/broker/allow-list.ts';
import { HttpBroker, REPLICA_IDENTITY_HEADER } from '../../../host/src/plugin/broker/http-broker.ts';
import { selfSignedCertificate } from '../../../host/src/server/tls.ts';
import { startServer, type TestServer } from './support/http-servers.ts';
import { recordingLogger } from './support/recording-logger.ts';
import { testBroker } from './support/test-broker.ts';

let api: TestServer;
let other: TestServer;
let forbidden: TestServer;
let store: CredentialStore;
let broker: HttpBroker;

interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  error?: { code: string; message: string };
}

async function ask(
  request: Partial<{ method: string; url: string; headers: Record<string, string>; body: string; timeoutMs: number }>,
  call = new AbortController().signal,
): Promise<Answer> {
  const full = { method: 'GET', url: '', headers: {}, body: '', timeoutMs: 0, ...request };
  const bytes = await broker.handle(new TextEncoder().encode(JSON.stringify(full)), call);
  return JSON.parse(new TextDecoder().decode(bytes)) as Answer;
}

beforeAll(async () => {
  forbidden = await startServer({ '/': (_req, res) => res.end('you should not be here') });
  other = await startServer({
    '/landing': (req, res) => res.end(`other saw ${req.method} auth=${req.headers.authorization ?? 'none'}`),
  });
  api = await startServer({
    '/echo': (req, res) => {
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('X-Custom', 'Value'); // sent as written; the plugin gets it lower case
      res.end(
        JSON.stringify({
          method: req.method,
          body: req.body,
          auth: req.headers.authorization ?? null,
          custom: req.headers['x-plugin'] ?? null,
        }),
      );
    },
    '/to-other': (_req, res) => res.writeHead(302, { location: other.url('/landing') }).end(),
    '/to-forbidden': (_req, res) => res.writeHead(307, { location: forbidden.url('/') }).end(),
    '/to-file': (_req, res) => res.writeHead(301, { location: 'file:///etc/passwd' }).end(),
    '/see-other': (_req, res) => res.writeHead(303, { location: '/echo' }).end(),
    '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/big': (_req, res) => res.end('x'.repeat(4096)),
    '/slow': (_req, res) => setTimeout(() => res.end('late'), 400),
    '/utf8': (_req, res) => res.setHeader('content-type', 'text/plain; charset=utf-8').end('grüße ☁'),
  });
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-broker-'));
  const file = join(dir, 'credentials.json');
  writeFileSync(
    file,
    JSON.stringify({
      credentials: [
        // Loopback test servers speak plain http: their entries say so.
        { name: 'api', hosts: [api.host], bearerToken: 'api-token', insecure: true },
        { name: 'other', hosts: [other.host], basicAuth: { username: 'o', password: 'pw' }, insecure: true },
        { name: 'strict', hosts: [forbidden.host], bearerToken: 'strict-token' },
      ],
    }),
  );
  store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
  broker = testBroker([api.host, other.host], store);
});

afterAll(async () => {
  broker.close();
  store.close();
  await Promise.all([api.close(), other.close(), forbidden.close()]);
});

describe('HTTP broker', () => {
  it('makes the request with the brokered credential, replacing what the plugin set', async () => {
    const answer = await ask({
      method: 'post',
      url: api.url('/echo'),
      body: 'hello ☁',
      headers: { Authorization: 'Bearer plugin-made-up', 'X-Plugin': 'yes', Host: 'evil.example' },
    });
    expect(answer.status).toBe(200);
    // The server got the brokered token; its echo reaches the plugin redacted (redact.ts).
    expect(api.seen.at(-1)?.headers.authorization).toBe('Bearer api-token');
    expect(JSON.parse(answer.body ?? '')).toEqual({
      method: 'POST',
      body: 'hello ☁',
      auth: 'Bearer [REDACTED]',
      custom: 'yes',
    });
    expect(answer.headers).toMatchObject({ 'set-cookie': 'a=1, b=2', 'x-custom': 'Value' });
    expect(api.seen.at(-1)?.headers.host).toBe(api.host);
  });

  it('sends the replica identity with every request, over whatever the plugin set', async () => {
    const identified = testBroker([api.host], store, {
      replica: { identity: 'host-a_1234', leaseFreshForMs: () => Infinity },
    });
    try {
      const request = {
        method: 'DELETE',
        url: api.url('/echo'),
        headers: { 'X-Kubernetes-Leader-Election-Identity': 'someone-else' },
        body: '',
        timeoutMs: 0,
      };
      const bytes = await identified.handle(
        new TextEncoder().encode(JSON.stringify(request)),
        new AbortController().signal,
      );
      expect((JSON.parse(new TextDecoder().decode(bytes)) as Answer).status).toBe(200);
      expect(api.seen.at(-1)?.headers[REPLICA_IDENTITY_HEADER]).toBe('host-a_1234');
      // Without an identity the plugin's own value is dropped, never forwarded.
      await ask({ url: api.url('/echo'), headers: { 'X-Kubernetes-Leader-Election-Identity': 'someone-else' } });
      expect(api.seen.at(-1)?.headers[REPLICA_IDENTITY_HEADER]).toBeUndefined();
    } finally {
      identified.close();
    }
  });

  it("refuses cloud changes once the replica's lease is not fresh, and lets reads through", async () => {
    let fresh = true;
    const guarded = testBroker([api.host], store, {
      replica: { identity: 'host-a_1234', leaseFreshForMs: () => (fresh ? 10_000 : 0) },
    });
    const send = async (method: string): Promise<Answer> => {
      const request = { method, url: api.url('/echo'), headers: {}, body: '', timeoutMs: 0 };
      const bytes = await guarded.handle(
        new TextEncoder().encode(JSON.stringify(request)),
        new AbortController().signal,
      );
      return JSON.parse(new TextDecoder().decode(bytes)) as Answer;
    };
    try {
      expect((await send('PUT')).status).toBe(200);
      fresh = false;
      const seen = api.seen.length;
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        expect((await send(method)).error).toEqual({
          code: 'Forbidden',
          message: `${method} ${api.host}: refused, this replica's leader lease is not fresh`,
        });
      }
      expect(api.seen.length).toBe(seen);
      expect((await send('GET')).status).toBe(200);
      expect(api.seen.length).toBe(seen + 1);
    } finally {
      guarded.close();
    }
  });

  it("refuses plain http to a credential's endpoint, naming the host, without connecting", async () => {
    // The README's `keys.acme.example:8443`: the same port may answer plain http, and the key would go in clear text.
    const tls = testBroker([forbidden.host], store);
    try {
      const before = forbidden.seen.length;
      const request = { method: 'GET', url: forbidden.url('/'), headers: {}, body: '', timeoutMs: 0 };
      const bytes = await tls.handle(new TextEncoder().encode(JSON.stringify(request)), new AbortController().signal);
      expect((JSON.parse(new TextDecoder().decode(bytes)) as Answer).error).toEqual({
        code: 'Forbidden',
        message: `plain http to ${forbidden.host} refused: credential 'strict' goes over https only (an entry says "insecure": true only for a loopback test host)`,
      });
      expect(forbidden.seen.length).toBe(before);
    } finally {
      tls.close();
    }
  });

  it('refuses hosts outside the allow-list without connecting', async () => {
    const before = forbidden.seen.length;
    const answer = await ask({ url: forbidden.url('/') });
    expect(answer.error?.code).toBe('Forbidden');
    expect(answer.error?.message).toContain(`${forbidden.host} is not allowed`);
    expect(forbidden.seen.length).toBe(before);
  });

  it('refuses other schemes and credentials in URLs', async () => {
    expect((await ask({ url: 'file:///etc/passwd' })).error).toMatchObject({
      code: 'Forbidden',
      message: expect.stringContaining('file:'),
    });
    expect((await ask({ url: `http://u:p@${api.host}/echo` })).error).toMatchObject({
      code: 'Forbidden',
      message: expect.stringContaining('credentials in URLs'),
    });
  });

  it('follows a redirect within the allow-list with that host’s own credential', async () => {
    const answer = await ask({ method: 'POST', url: api.url('/to-other'), body: 'x' });
    expect(answer.status).toBe(200);
    // 302 after POST continues as GET; the api token did not travel to the other host, which got its own.
    expect(other.seen.at(-1)?.headers.authorization).toBe(`Basic ${Buffer.from('o:pw').toString('base64')}`);
    expect(answer.body).toBe('other saw GET auth=Basic [REDACTED]');
  });

  it('refuses a redirect to a host outside the allow-list, and to another scheme', async () => {
    const before = forbidden.seen.length;
    const answer = await ask({ url: api.url('/to-forbidden') });
    expect(answer.error?.code).toBe('Forbidden');
    expect(answer.error?.message).toContain(`redirect from ${api.host} to ${forbidden.host} is not allowed`);
    expect(forbidden.seen.length).toBe(before);
    expect((await ask({ url: api.url('/to-file') })).error?.code).toBe('Forbidden');
  });

  it('turns 303 into a GET and stops redirect loops', async () => {
    const answer = await ask({ method: 'PUT', url: api.url('/see-other'), body: 'data' });
    expect(JSON.parse(answer.body ?? '')).toMatchObject({ method: 'GET', body: '' });
    expect((await ask({ url: api.url('/loop') })).error).toMatchObject({
      code: 'Network',
      message: expect.stringContaining('more than 3 redirects'),
    });
  });

  it('caps the response size', async () => {
    expect((await ask({ url: api.url('/big') })).error).toMatchObject({
      code: 'TooLarge',
      message: expect.stringContaining('larger than 1024 bytes'),
    });
  });

  it('times out per request and at the call deadline', async () => {
    const own = await ask({ url: api.url('/slow'), timeoutMs: 100 });
    expect(own.error).toMatchObject({ code: 'Timeout', message: expect.stringContaining('within 100 ms') });
    const deadline = await ask({ url: api.url('/slow') }, AbortSignal.timeout(50));
    expect(deadline.error).toMatchObject({ code: 'Timeout', message: expect.stringContaining("the call's deadline") });
    // The keep-alive pool still works after aborted requests.
    expect((await ask({ url: api.url('/utf8') })).body).toBe('grüße ☁');
  });

  it('answers a malformed request with a Network error naming the problem', async () => {
    const bytes = await broker.handle(new TextEncoder().encode('{"method": "GET"}'), new AbortController().signal);
    const answer = JSON.parse(new TextDecoder().decode(bytes)) as Answer;
    expect(answer.error).toMatchObject({
      code: 'Network',
      message: expect.stringContaining('malformed ccm_http request'),
    });
    const notJson = JSON.parse(
      new TextDecoder().decode(await broker.handle(Uint8Array.of(0xff), new AbortController().signal)),
    ) as Answer;
    expect(notJson.error?.message).toContain('not UTF-8 JSON');
  });

  it('answers a header or method the HTTP client refuses with a Network error saying which', async () => {
    expect((await ask({ url: api.url('/echo'), headers: { 'X-Bad': 'a\r\nb' } })).error).toMatchObject({
      code: 'Network',
      message: expect.stringMatching(/x-bad/i),
    });
    expect((await ask({ url: api.url('/echo'), method: 'NOT A TOKEN' })).error).toMatchObject({
      code: 'Network',
      message: expect.stringMatching(/method/i),
    });
    // And the connection pool still serves the next request.
    expect((await ask({ url: api.url('/utf8') })).body).toBe('grüße ☁');
  });

  it('reports connection failures as Network', async () => {
    const closed = await startServer({});
    const host = closed.host;
    await closed.close();
    const lonely = new HttpBroker({
      allowList: new HostAllowList([host]),
      credentials: CredentialStore.empty(),
      maxResponseBytes: 1024,
      defaultTimeoutMs: 1000,
      maxTimeoutMs: 1000,
      maxRedirects: 1,
    });
    const bytes = await lonely.handle(
      new TextEncoder().encode(
        JSON.stringify({ method: 'GET', url: `http://${host}/`, headers: {}, body: '', timeoutMs: 0 }),
      ),
      new AbortController().signal,
    );
    expect((JSON.parse(new TextDecoder().decode(bytes)) as Answer).error).toMatchObject({
      code: 'Network',
      message: expect.stringContaining('ECONNREFUSED'),
    });
    lonely.close();
  });

  it('reaches an https host trusted through the tls option, and refuses it otherwise', async () => {
    const certificate = selfSignedCertificate();
    const server = https.createServer(certificate, (req, res) => res.end(`secure ${req.method}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const options = {
      allowList: new HostAllowList([host]),
      credentials: CredentialStore.empty(),
      maxResponseBytes: 1024,
      defaultTimeoutMs: 2000,
      maxTimeoutMs: 2000,
      maxRedirects: 1,
    };
    const trusting = new HttpBroker({ ...options, tls: { ca: certificate.cert } });
    const plain = new HttpBroker(options);
    const request = new TextEncoder().encode(
      JSON.stringify({ method: 'GET', url: `https://${host}/`, headers: {}, body: '', timeoutMs: 0 }),
    );
    const decode = async (p: Promise<Uint8Array>): Promise<Answer> =>
      JSON.parse(new TextDecoder().decode(await p)) as Answer;
    try {
      expect(await decode(trusting.handle(request, new AbortController().signal))).toMatchObject({
        status: 200,
        body: 'secure GET',
      });
      expect((await decode(plain.handle(request, new AbortController().signal))).error).toMatchObject({
        code: 'Network',
        message: `request to ${host} failed: DEPTH_ZERO_SELF_SIGNED_CERT`,
      });
    } finally {
      trusting.close();
      plain.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('the broker at -v=4', () => {
  it('logs each request: method, host, path, status or error code, duration; never the query or a credential', async () => {
    const { logger, records } = recordingLogger();
    const logged = testBroker([api.host, other.host], store, { logger });
    const send = (url: string) =>
      logged.handle(
        new TextEncoder().encode(JSON.stringify({ method: 'post', url, headers: {}, body: '{}', timeoutMs: 0 })),
        new AbortController().signal,
      );
    try {
      await send(`${api.url('/echo')}?X-Amz-Signature=query-secret`);
      await send(forbidden.url('/'));
      const requests = records.filter((r) => r.message === 'plugin HTTP request');
      expect(requests.map((r) => r.fields)).toMatchObject([
        { v: 4, method: 'POST', host: api.host, path: '/echo', status: 200, duration: expect.stringMatching(/ms$/) },
        { v: 4, method: 'POST', host: forbidden.host, path: '/', error: 'Forbidden' },
      ]);
      const text = JSON.stringify(records);
      for (const secret of ['query-secret', 'X-Amz-Signature', 'api-token', 'Bearer'])
        expect(text).not.toContain(secret);
    } finally {
      logged.close();
    }
  });
});
