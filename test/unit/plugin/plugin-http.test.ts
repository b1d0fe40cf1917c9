// ccm_http from inside a plugin: only allow-listed hosts, redirects only within the list, credentials attached by
// the host and never visible to the plugin, secrets in the plugin's config only when exposed explicitly.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../../host/src/cloudprovider/index.ts';
import { WasmProvider } from '../../../host/src/plugin/index.ts';
import { buildFixture } from '../../../lab/plugins/index.ts';
import { startServer, type TestServer } from './support/http-servers.ts';
import { node } from './support/nodes.ts';

const TOKEN = 'brokered-token-7f3a';
let api: TestServer;
let outside: TestServer;
let credentialsFile: string;
let exposedFile: string;
let provider: WasmProvider;
let exposing: WasmProvider;

beforeAll(async () => {
  outside = await startServer({ '/': (_req, res) => res.end('leaked') });
  api = await startServer({
    '/whoami': (req, res) => res.end(req.headers.authorization === `Bearer ${TOKEN}` ? 'authenticated' : 'anonymous'),
    '/away': (_req, res) => res.writeHead(302, { location: outside.url('/') }).end(),
    '/hang': () => {
      // Never answers: the call's deadline must end it.
    },
  });
  credentialsFile = join(mkdtempSync(join(tmpdir(), 'wasm-ccm-plugin-http-')), 'credentials.json');
  const credentials = JSON.stringify({
    credentials: [{ name: 'api', hosts: [api.host], bearerToken: TOKEN, insecure: true }],
  });
  writeFileSync(credentialsFile, credentials);
  exposedFile = `${credentialsFile}.exposed`;
  writeFileSync(exposedFile, credentials);
  const bytes = await buildFixture('faulty');
  provider = await WasmProvider.load({
    source: { bytes },
    allowedHosts: [api.host],
    credentials: { file: credentialsFile, reloadIntervalMs: 0 },
    pool: { size: 1 },
    limits: { methodTimeoutsMs: { instanceMetadata: 300 }, queueTimeoutMs: 20_000 },
  });
  exposing = await WasmProvider.load({
    source: { bytes },
    credentials: { file: exposedFile, reloadIntervalMs: 25, exposeToPlugin: { apiToken: 'api' } },
    pool: { size: 2, minInstances: 2 },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([provider?.close(), exposing?.close()]);
  await Promise.all([api?.close(), outside?.close()]);
});

/** The faulty plugin's 'http' fault reports ccm_http's raw answer in its error message. */
async function pluginSees(
  p: WasmProvider,
  url: string,
): Promise<{ status?: number; body?: string; error?: { code: string; message: string } }> {
  try {
    await p.instancesV2()?.instanceMetadata(node('http', url));
  } catch (err) {
    expect(err).toBeInstanceOf(InternalError);
    const answer = (err as Error).message.split('answer=')[1] ?? '';
    return JSON.parse(answer) as { status?: number; body?: string; error?: { code: string; message: string } };
  }
  throw new Error('the http fault did not answer');
}

describe('HTTP from a plugin', () => {
  it('reaches an allowed host, authenticated by the host, without the plugin seeing the token', async () => {
    const answer = await pluginSees(provider, api.url('/whoami'));
    expect(answer).toMatchObject({ status: 200, body: 'authenticated' });
    expect(JSON.stringify(answer)).not.toContain(TOKEN);
    expect(api.seen.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('gets Forbidden for a host outside its allow-list, which is never contacted', async () => {
    const answer = await pluginSees(provider, outside.url('/'));
    expect(answer.error?.code).toBe('Forbidden');
    expect(answer.error?.message).toContain(`${outside.host} is not allowed`);
    expect(outside.seen).toHaveLength(0);
  });

  it('gets Forbidden for a redirect out of its allow-list', async () => {
    const answer = await pluginSees(provider, api.url('/away'));
    expect(answer.error).toMatchObject({
      code: 'Forbidden',
      message: expect.stringContaining(`redirect from ${api.host} to ${outside.host}`),
    });
    expect(outside.seen).toHaveLength(0);
  });

  it('times out at the call deadline while the host waits on HTTP for it, and recovers', async () => {
    const started = performance.now();
    await expect(provider.instancesV2()?.instanceMetadata(node('http', api.url('/hang')))).rejects.toThrow(
      /ccm_instance_metadata did not finish within 300 ms; its instance is being terminated/,
    );
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await pluginSees(provider, api.url('/whoami'))).body).toBe('authenticated');
  });

  it('cannot read a secret it was not given, nor reach the file system through HTTP', async () => {
    await expect(provider.instancesV2()?.instanceMetadata(node('secret'))).rejects.toThrow(
      'no secret apiToken in config',
    );
    const file = await pluginSees(provider, `file://${credentialsFile}`);
    expect(file.error?.code).toBe('Forbidden');
  });

  it('reads a secret from its config only when the operator exposed it explicitly', async () => {
    await expect(exposing.instancesV2()?.instanceMetadata(node('secret'))).rejects.toThrow(`secret=${TOKEN}`);
    // That plugin has no allowed hosts at all.
    expect((await pluginSees(exposing, api.url('/whoami'))).error?.code).toBe('Forbidden');
  });

  it('gives the plugin the new value of an exposed secret after the file changes (instances are recycled)', async () => {
    writeFileSync(
      exposedFile,
      JSON.stringify({ credentials: [{ name: 'api', hosts: [api.host], bearerToken: 'rotated-1', insecure: true }] }),
    );
    await expect
      .poll(async () => {
        try {
          await exposing.instancesV2()?.instanceMetadata(node('secret'));
        } catch (err) {
          return (err as Error).message;
        }
        return 'no error';
      })
      .toContain('secret=rotated-1');
  });
});
