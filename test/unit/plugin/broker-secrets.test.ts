// Brokered secrets stay on the host: an allowed endpoint that echoes the request hands the plugin its answer with
// every attached secret redacted (bearer token, basic-auth password and its base64 form, custom header values),
// in headers and body, on both broker paths; and a credential whose host no allowed request can match is reported.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import { HostAllowList } from '../../../host/src/plugin/broker/allow-list.ts';
import type { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import { REDACTED } from '../../../host/src/plugin/broker/redact.ts';
import { readAnswerFrame, requestFrame } from './support/frames.ts';
import { type Route, startServer, type TestServer } from './support/http-servers.ts';
import { recordingLogger } from './support/recording-logger.ts';
import { testBroker } from './support/test-broker.ts';

const TOKEN = 'tok-SECRET-123';
const PASSWORD = 'pa55word!';
const BASIC = Buffer.from(`user:${PASSWORD}`).toString('base64');
const API_KEY = 'key-abc-999';

// Echoes every request header back as a header and in the body, the body in two writes that split each value.
const echo: Route = (req, res) => {
  const values = Object.values(req.headers).filter((v): v is string => typeof v === 'string');
  res.setHeader('x-echo', values.join(' | '));
  res.setHeader('x-password', PASSWORD);
  const text = JSON.stringify({ headers: req.headers, again: values.join(''), password: PASSWORD });
  const cut = text.indexOf(TOKEN) + 5;
  res.write(text.slice(0, cut > 5 ? cut : text.length / 2));
  setTimeout(() => res.end(text.slice(cut > 5 ? cut : text.length / 2)), 10);
};

let bearer: TestServer;
let basic: TestServer;
let keyed: TestServer;
let plain: TestServer;
let broker: HttpBroker;
let store: CredentialStore;
const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-secrets-'));

beforeAll(async () => {
  const start = (more: Record<string, Route> = {}) => startServer({ '/echo': echo, ...more });
  plain = await start({ [`/leak/${TOKEN}`]: (req, res) => res.end(`you came to ${req.path}`) });
  // A redirect that puts the token it was sent into the next hop's URL.
  bearer = await start({
    '/bounce': (_req, res) => res.writeHead(302, { location: plain.url(`/leak/${TOKEN}`) }).end(),
  });
  [basic, keyed] = [await start(), await start()];
  const file = join(dir, 'credentials.json');
  writeFileSync(
    file,
    JSON.stringify({
      credentials: [
        { name: 'bearer', hosts: [bearer.host], bearerToken: TOKEN, insecure: true },
        { name: 'basic', hosts: [basic.host], basicAuth: { username: 'user', password: PASSWORD }, insecure: true },
        { name: 'keyed', hosts: [keyed.host], headers: { 'X-Api-Key': API_KEY, 'X-Short': 'abc' }, insecure: true },
      ],
    }),
  );
  store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
  broker = testBroker([bearer.host, basic.host, keyed.host, plain.host], store, { maxResponseBytes: 1 << 20 });
});

afterAll(async () => {
  broker.close();
  store.close();
  await Promise.all([bearer, basic, keyed, plain].map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function viaJson(url: string): Promise<string> {
  const request = { method: 'GET', url, headers: { 'x-plugin': TOKEN }, body: '', timeoutMs: 0 };
  return new TextDecoder().decode(
    await broker.handle(new TextEncoder().encode(JSON.stringify(request)), AbortSignal.timeout(5000)),
  );
}

async function viaBytes(url: string): Promise<string> {
  const head = { method: 'GET', url, headers: { 'x-plugin': TOKEN }, timeoutMs: 0 };
  const answer = readAnswerFrame(await broker.handleBytes(requestFrame(head), AbortSignal.timeout(5000)));
  return JSON.stringify(answer.head) + Buffer.from(answer.body).toString('utf8');
}

describe('brokered secrets in answers', () => {
  it.each([
    ['a bearer token', () => bearer, [TOKEN]],
    ['a basic-auth password and its base64 form', () => basic, [PASSWORD, BASIC]],
    ['custom header values', () => keyed, [API_KEY]],
  ])('redacts %s echoed in headers and body, on both broker paths', async (_what, server, attached) => {
    for (const ask of [viaJson, viaBytes]) {
      const seenBefore = server().seen.length;
      const answer = await ask(server().url('/echo'));
      expect(server().seen.length).toBe(seenBefore + 1);
      // The server did get the secret (the request was made with it) ...
      const sent = JSON.stringify(server().seen.at(-1)?.headers);
      for (const secret of attached) if (secret !== PASSWORD) expect(sent).toContain(secret);
      // ... and the plugin sees none of the attached ones, in any header or anywhere in the body.
      for (const secret of attached) expect(answer).not.toContain(secret);
      expect(answer).toContain(REDACTED);
    }
  });

  it('redacts a secret a redirect carried to the next hop, which did not get the credential itself', async () => {
    const answer = await viaJson(bearer.url('/bounce'));
    expect(plain.seen.at(-1)?.path).toBe(`/leak/${TOKEN}`); // the next hop did see it, in the path
    expect(answer).not.toContain(TOKEN);
    expect(answer).toContain(`/leak/${REDACTED}`);
  });

  it('leaves answers to requests without a credential untouched (only those are scanned)', async () => {
    const answer = await viaJson(plain.url('/echo'));
    // The plugin's own header and the password the server made up come back as they are: nothing was attached.
    expect(answer).toContain(TOKEN);
    expect(answer).toContain(PASSWORD);
    expect(answer).not.toContain(REDACTED);
  });

  it('redacts only what this request carried, and not values too short to be told from text', async () => {
    const answer = await viaJson(keyed.url('/echo'));
    expect(answer).toContain(TOKEN); // another credential's secret, sent by the plugin itself: not this request's
    expect(answer).toContain('abc'); // X-Short: under the 4-byte minimum
    expect(answer).not.toContain(API_KEY);
  });
});

describe('credential hosts the allow-list cannot reach', () => {
  it('warns at load naming the credential, its host and the allowed host it probably meant', async () => {
    const file = join(dir, 'portless.json');
    writeFileSync(
      file,
      JSON.stringify({
        credentials: [
          { name: 'api', hosts: ['api.example', 'api.example:443'], bearerToken: 'x-token' },
          { name: 'nowhere', hosts: ['other.example'], bearerToken: 'y-token' },
          { name: 'fine', hosts: ['plain.example'], bearerToken: 'z-token' },
        ],
      }),
    );
    const { logger, records } = recordingLogger();
    const credentials = await CredentialStore.open({ file, reloadIntervalMs: 0, logger });
    const allowed = ['api.example:8990', 'plain.example:443'];
    const warned = testBroker(allowed, credentials);
    const warnings = records.filter((r) => r.level === 'warn').map((r) => r.fields);
    expect(warnings).toEqual([
      expect.objectContaining({ credential: 'api', host: 'api.example', allowedHost: 'api.example:8990' }),
      expect.objectContaining({ credential: 'api', host: 'api.example:443', allowedHost: 'api.example:8990' }),
      expect.objectContaining({ credential: 'nowhere', host: 'other.example' }),
    ]);
    expect(warnings[0]?.hint).toContain('write "api.example:8990"');
    expect(credentials.unreachableHosts(new HostAllowList(allowed)).map((u) => u.credential)).toEqual([
      'api',
      'api',
      'nowhere',
    ]);
    // plain.example (no port) reaches plain.example:443 only through the default-port rule: https only.
    expect(credentials.defaultPortMatches(new HostAllowList(allowed))).toEqual([
      { credential: 'fine', host: 'plain.example', allowedHost: 'plain.example:443' },
    ]);
    expect(credentials.defaultPortMatches(new HostAllowList(['plain.example', 'api.example:8990']))).toEqual([]);
    warned.close();
    credentials.close();
  });
});
