// The host's Keystone login against the real keystone (lab/clouds/openstack/keystone-only.ts): a plugin (the faulty
// AssemblyScript fixture) behind a keystone credential, with a password and with an application credential, reads
// the compute endpoint from the catalog in its config and GETs /v2.1/flavors through the broker; the compute service
// here is a stand-in that asks Keystone about every token (GET /v3/auth/tokens), so a token Keystone revoked is
// refused as nova would refuse it, and the broker logs in again and sends the request once more.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../../host/src/cloudprovider/index.ts';
import { WasmProvider } from '../../../host/src/plugin/index.ts';
import {
  KEYSTONE_ADMIN,
  KEYSTONE_REGION,
  type KeystoneOnly,
  startKeystoneOnly,
} from '../../../lab/clouds/openstack/index.ts';
import { buildFixture } from '../../../lab/plugins/index.ts';

interface ComputeRequest {
  token: string | undefined;
  status: number;
}

let keystone: KeystoneOnly;
let compute: http.Server;
let computeURL: string;
const seen: ComputeRequest[] = [];
let dir: string;
const providers: WasmProvider[] = [];

beforeAll(async () => {
  keystone = await startKeystoneOnly({ log: (m) => console.log(m) });
  compute = http.createServer((req, res) => {
    const token = req.headers['x-auth-token'] as string | undefined;
    const check = token === undefined ? Promise.resolve(false) : keystone.tokenValid(token);
    void check.then((valid) => {
      seen.push({ token, status: valid ? 200 : 401 });
      if (!valid) return res.writeHead(401).end('{"error": {"code": 401}}');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"flavors": [{"id": "1", "name": "m1.small"}]}');
    });
  });
  await new Promise<void>((resolve) => compute.listen(0, '127.0.0.1', resolve));
  computeURL = `http://127.0.0.1:${(compute.address() as AddressInfo).port}/v2.1`;
  await keystone.addService('compute', 'nova', computeURL);
  dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-keystone-e2e-'));
}, 180_000);

afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
  compute?.closeAllConnections();
  await new Promise<void>((resolve) => (compute ? compute.close(() => resolve()) : resolve()));
  await keystone?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A plugin behind the keystone entry `fields` (secret files written beside the credentials file). */
async function pluginWith(name: string, fields: Record<string, string>): Promise<WasmProvider> {
  const file = join(dir, `${name}.json`);
  const keystoneFields = { authURL: keystone.authURL, region: KEYSTONE_REGION, ...fields };
  writeFileSync(
    file,
    JSON.stringify({ credentials: [{ name, hostsFromCatalog: true, insecure: true, keystone: keystoneFields }] }),
  );
  const provider = await WasmProvider.load({
    source: { bytes: await buildFixture('faulty') },
    credentials: { file, reloadIntervalMs: 0 },
    pool: { size: 1 },
  });
  providers.push(provider);
  return provider;
}

/** What the faulty plugin reports for `fault` (its error message after `marker`). */
async function pluginSays(provider: WasmProvider, fault: string, marker: string, providerID: string): Promise<string> {
  const node = { name: fault, uid: fault, providerID, labels: {}, annotations: {}, addresses: [] };
  try {
    await provider.instancesV2()?.instanceMetadata(node);
  } catch (err) {
    expect(err).toBeInstanceOf(InternalError);
    return (err as Error).message.split(marker)[1] ?? '';
  }
  throw new Error(`the ${fault} fault did not answer`);
}

/** The plugin's own way: the compute endpoint from the catalog in its config, then a GET of its flavors. */
async function flavorsThrough(provider: WasmProvider, credential: string): Promise<{ status: number; body: string }> {
  const catalog = JSON.parse(await pluginSays(provider, 'config', 'config=', `keystone.${credential}.catalog`)) as {
    endpoints: Array<{ type: string; url: string }>;
  };
  const endpoint = catalog.endpoints.find((e) => e.type === 'compute');
  expect(endpoint?.url).toBe(computeURL);
  return JSON.parse(await pluginSays(provider, 'http', 'answer=', `${endpoint?.url}/flavors`)) as {
    status: number;
    body: string;
  };
}

describe('keystone login against the real keystone', () => {
  it('logs in with a password and reaches the compute endpoint of the catalog', async () => {
    writeFileSync(join(dir, 'password'), `${KEYSTONE_ADMIN.password}\n`);
    const provider = await pluginWith('password-login', {
      userName: KEYSTONE_ADMIN.userName,
      userDomainName: KEYSTONE_ADMIN.domain,
      passwordFile: 'password',
      projectName: KEYSTONE_ADMIN.projectName,
      projectDomainName: KEYSTONE_ADMIN.domain,
    });
    const answer = await flavorsThrough(provider, 'password-login');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ flavors: [{ id: '1', name: 'm1.small' }] });
    expect(seen.at(-1)?.status).toBe(200);
  });

  it('logs in with an application credential and reaches it too', async () => {
    const credential = await keystone.createApplicationCredential(`ccm-${Date.now()}`);
    writeFileSync(join(dir, 'app-secret'), credential.secret);
    const provider = await pluginWith('app-login', {
      applicationCredentialID: credential.id,
      applicationCredentialSecretFile: 'app-secret',
    });
    expect((await flavorsThrough(provider, 'app-login')).status).toBe(200);
  });

  it('renews a token Keystone revoked on the 401 and the request succeeds', async () => {
    const provider = providers[0] as WasmProvider;
    expect((await flavorsThrough(provider, 'password-login')).status).toBe(200);
    const before = seen.at(-1)?.token as string;
    await keystone.revoke(before);
    expect(await keystone.tokenValid(before)).toBe(false);
    const count = seen.length;
    expect((await flavorsThrough(provider, 'password-login')).status).toBe(200);
    const after = seen.slice(count);
    expect(after.map((r) => r.status)).toEqual([401, 200]);
    expect(after[0]?.token).toBe(before);
    expect(after[1]?.token).not.toBe(before);
    expect(await keystone.tokenValid(after[1]?.token as string)).toBe(true);
  });
});
