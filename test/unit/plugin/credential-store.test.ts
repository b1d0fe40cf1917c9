import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CredentialFileError, parseCredentialFile } from '../../../host/src/plugin/broker/credential-file.ts';
import { CredentialRefusal, CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import { recordingLogger } from './support/recording-logger.ts';

function tempFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-creds-'));
  const file = join(dir, 'credentials.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const credentials = {
  credentials: [
    { name: 'api', hosts: ['api.example.com'], bearerToken: 'tok-123' },
    { name: 'meta', hosts: ['10.0.0.1:8080'], basicAuth: { username: 'user', password: 'p:ss' } },
    {
      name: 'keys',
      hosts: ['keys.example.com:8443', 'keys2.example.com'],
      headers: { 'X-Api-Key': 'k1', 'X-Tenant': 't' },
    },
  ],
};

describe('credentials file', () => {
  it('parses the three kinds', () => {
    const parsed = parseCredentialFile(JSON.stringify(credentials), 'f');
    expect(parsed.map((c) => c.secret.kind)).toEqual(['bearer', 'basic', 'headers']);
    expect(parsed[2]?.hosts).toEqual([
      { hostname: 'keys.example.com', port: 8443 },
      { hostname: 'keys2.example.com', port: undefined },
    ]);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['no list', { creds: [] }, /expected \{"credentials": \[\.\.\.\]\}/],
    [
      'two kinds',
      { credentials: [{ name: 'a', hosts: ['h'], bearerToken: 't', headers: { a: 'b' } }] },
      /exactly one of/,
    ],
    ['no hosts', { credentials: [{ name: 'a', hosts: [], bearerToken: 't' }] }, /hosts must be a non-empty list/],
    ['bad host', { credentials: [{ name: 'a', hosts: ['https://h'], bearerToken: 't' }] }, /must be host or host:port/],
    ['duplicate', { credentials: [credentials.credentials[0], credentials.credentials[0]] }, /duplicate name 'api'/],
    ['newline in token', { credentials: [{ name: 'a', hosts: ['h'], bearerToken: 't\nx' }] }, /single-line/],
    [
      'insecure on a host that is not loopback',
      {
        credentials: [{ name: 'a', hosts: ['127.0.0.1:80', 'api.example.com:8080'], bearerToken: 't', insecure: true }],
      },
      /\(a\)\.insecure: 'api\.example\.com:8080' is not a loopback address \(127\.0\.0\.0\/8, \[::1\] or localhost\)/,
    ],
    [
      'insecure on a subdomain of localhost, which resolvers treat differently',
      { credentials: [{ name: 'a', hosts: ['api.localhost:8080'], bearerToken: 't', insecure: true }] },
      /'api\.localhost:8080' is not a loopback address/,
    ],
    [
      'insecure not a boolean',
      { credentials: [{ name: 'a', hosts: ['h'], bearerToken: 't', insecure: 'yes' }] },
      /insecure must be true or false/,
    ],
    [
      'bad header name',
      { credentials: [{ name: 'a', hosts: ['h'], headers: { 'X Bad': 'v' } }] },
      /not a valid header name/,
    ],
  ])('refuses %s', (_what, content, message) => {
    const text = typeof content === 'string' ? content : JSON.stringify(content);
    expect(() => parseCredentialFile(text, 'creds.json')).toThrow(message);
    expect(() => parseCredentialFile(text, 'creds.json')).toThrow(CredentialFileError);
  });

  it('never puts a secret value into an error message', () => {
    const secret = 'super-secret-value-42';
    for (const bad of [
      `{"credentials": [{"name": "a", "hosts": ["h"], "bearerToken": "${secret}", "headers": {}}]}`,
      `{"credentials": [{"name": "a", "hosts": ["h"], "basicAuth": {"username": "x:${secret}", "password": "p"}}]}`,
      `{"credentials": [{"name": "a", "hosts": ["h"], "bearerToken": "${secret}"`,
      // The JSON parser quotes the text around a bad token; a line break there defeated the quote removal.
      `{"credentials": [{"name": "a", "hosts": ["h"], "bearerToken":\n${secret}}]}`,
      `{"credentials": [{"name": "a", "hosts": ["h"], "bearerToken": ${secret}\n}]}`,
      `${secret}\n`,
    ]) {
      expect(() => parseCredentialFile(bad, 'f')).toThrow(CredentialFileError);
      try {
        parseCredentialFile(bad, 'f');
      } catch (err) {
        // Not even a piece: the parser's quote is cut short.
        expect((err as Error).message).not.toContain(secret.slice(0, 6));
      }
    }
  });
});

describe('credential store', () => {
  it('gives each host its own headers, by exact host and port', async () => {
    const store = await CredentialStore.open({
      file: tempFile(credentials),
      reloadIntervalMs: 0,
      logger: recordingLogger().logger,
    });
    expect(store.headersFor(new URL('https://api.example.com/v1'))).toEqual({ authorization: 'Bearer tok-123' });
    expect(store.headersFor(new URL('https://api.example.com:8443/v1'))).toEqual({});
    expect(store.headersFor(new URL('https://10.0.0.1:8080/'))).toEqual({
      authorization: `Basic ${Buffer.from('user:p:ss').toString('base64')}`,
    });
    expect(store.headersFor(new URL('https://keys2.example.com/'))).toEqual({ 'x-api-key': 'k1', 'x-tenant': 't' });
    expect(store.headersFor(new URL('https://elsewhere.example.com/'))).toEqual({});
    store.close();
  });

  it('sends a credential over https only: plain http to its endpoint is refused, naming the host', async () => {
    const file = tempFile({
      credentials: [
        ...credentials.credentials,
        { name: 'tls', hosts: ['tls.example.com:443'], bearerToken: 'tok-tls' },
        { name: 'plain', hosts: ['plain.example.com:80'], bearerToken: 'tok-plain' },
      ],
    });
    const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
    const get = (url: string) => store.authorize({ method: 'GET', url: new URL(url), headers: {} });
    // A host without a port is https's 443: http://api.example.com/ (port 80) is another endpoint, without a credential.
    expect(get('http://api.example.com/v1')).toBeUndefined();
    expect(store.headersFor(new URL('https://tls.example.com/'))).toEqual({ authorization: 'Bearer tok-tls' });
    expect(store.headersFor(new URL('https://keys.example.com:8443/'))).toEqual({ 'x-api-key': 'k1', 'x-tenant': 't' });
    // The endpoint a credential names, asked for over plain http: the secret would cross the network in clear text.
    for (const [url, name] of [
      ['http://keys.example.com:8443/', 'keys'],
      ['http://plain.example.com/', 'plain'],
      ['http://tls.example.com:443/', 'tls'],
      ['http://10.0.0.1:8080/', 'meta'],
      ['http://api.example.com:443/', 'api'],
    ] as const) {
      const host = new URL(url).host;
      expect(() => get(url)).toThrow(CredentialRefusal);
      expect(() => get(url)).toThrow(
        `plain http to ${host} refused: credential '${name}' goes over https only (an entry says "insecure": true only for a loopback test host)`,
      );
      expect(() => store.headersFor(new URL(url))).toThrow(CredentialRefusal);
    }
    store.close();
  });

  it('attaches over plain http for an entry that says insecure, whose hosts are all loopback', async () => {
    const file = tempFile({
      credentials: [
        {
          name: 'test',
          hosts: ['127.0.0.1:8080', '127.9.9.9:81', '[::1]:8443', 'localhost:8081'],
          bearerToken: 'tok',
          insecure: true,
        },
        { name: 'strict', hosts: ['127.0.0.1:9090'], bearerToken: 'tok-strict', insecure: false },
      ],
    });
    const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: recordingLogger().logger });
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://127.9.9.9:81/',
      'http://[::1]:8443/',
      'https://127.0.0.1:8080/',
    ]) {
      expect(store.headersFor(new URL(url))).toEqual({ authorization: 'Bearer tok' });
    }
    expect(() => store.headersFor(new URL('http://127.0.0.1:9090/'))).toThrow(CredentialRefusal);
    store.close();
  });

  it('exposes a secret to the plugin only when asked to, and refuses unknown names', async () => {
    const file = tempFile(credentials);
    const logger = recordingLogger().logger;
    const quiet = await CredentialStore.open({ file, reloadIntervalMs: 0, logger });
    expect(quiet.exposedConfig()).toEqual({});
    expect(quiet.exposesSecrets).toBe(false);
    const open = await CredentialStore.open({
      file,
      reloadIntervalMs: 0,
      logger,
      exposeToPlugin: { apiToken: 'api', meta: 'meta' },
    });
    expect(open.exposedConfig()).toEqual({ apiToken: 'tok-123', meta: 'user:p:ss' });
    await expect(
      CredentialStore.open({ file, reloadIntervalMs: 0, logger, exposeToPlugin: { x: 'nope' } }),
    ).rejects.toThrow(/no credential named 'nope'/);
    quiet.close();
    open.close();
  });

  it('fails at start when the file is missing or invalid', async () => {
    const logger = recordingLogger().logger;
    await expect(CredentialStore.open({ file: '/nonexistent/creds.json', logger })).rejects.toThrow(/ENOENT/);
    await expect(CredentialStore.open({ file: tempFile('[]'), logger })).rejects.toThrow(CredentialFileError);
  });

  it('re-reads a changed file (Secret volumes swap files), keeps the old credentials when the new file is bad', async () => {
    const file = tempFile(credentials);
    const { logger, records } = recordingLogger();
    const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger });
    const changed = vi.fn();
    store.onChange(changed);
    expect(await store.reload()).toBe(false); // unchanged

    const next = { credentials: [{ name: 'api', hosts: ['api.example.com'], bearerToken: 'tok-456' }] };
    writeFileSync(`${file}.new`, JSON.stringify(next));
    renameSync(`${file}.new`, file);
    expect(await store.reload()).toBe(true);
    expect(store.headersFor(new URL('https://api.example.com/'))).toEqual({ authorization: 'Bearer tok-456' });
    expect(changed).toHaveBeenCalledTimes(1);

    writeFileSync(file, '{"credentials": [{"name": "api"');
    expect(await store.reload()).toBe(false);
    expect(store.headersFor(new URL('https://api.example.com/'))).toEqual({ authorization: 'Bearer tok-456' });
    expect(records.some((r) => r.level === 'error' && r.message.includes('keeping the previous ones'))).toBe(true);
    expect(JSON.stringify(records)).not.toContain('tok-');
    store.close();
  });

  it('polls the file', async () => {
    const file = tempFile(credentials);
    const store = await CredentialStore.open({ file, reloadIntervalMs: 20, logger: recordingLogger().logger });
    const changed = new Promise<void>((resolve) => store.onChange(resolve));
    writeFileSync(
      file,
      JSON.stringify({ credentials: [{ name: 'api', hosts: ['api.example.com'], bearerToken: 'rotated' }] }),
    );
    await changed;
    expect(store.headersFor(new URL('https://api.example.com/'))).toEqual({ authorization: 'Bearer rotated' });
    store.close();
  });
});
