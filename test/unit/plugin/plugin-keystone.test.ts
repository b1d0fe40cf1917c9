// A plugin loaded with a keystone credential read from OCCM's cloud.conf, which is also its --cloud-config: the login
// happens at load, the plugin's ccm_initialize gets the file without its secret keys, its Extism config the catalog,
// and its requests to the catalog's hosts carry the token it never sees. A failed login fails the load.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../../host/src/cloudprovider/index.ts';
import { WasmProvider } from '../../../host/src/plugin/index.ts';
import { buildFixture } from '../../../lab/plugins/index.ts';
import { type FakeKeystone, REGION, startFakeKeystone, USER } from './support/keystone-server.ts';
import { node } from './support/nodes.ts';

const CLUSTER = 'keystone-test';
let keystone: FakeKeystone;
let provider: WasmProvider;
let dir: string;
let cloudConf: string;

function cloudConfText(password: string): string {
  return [
    '[Global]',
    `auth-url = ${keystone.authURL}`,
    `username = ${USER.name}`,
    `password = ${password}`,
    `domain-name = ${USER.domain}`,
    'tenant-name = k8s',
    `region = ${REGION}`,
    'tls-insecure = true',
    '',
    '[LoadBalancer]',
    'floating-network-id = fip-net',
    '',
  ].join('\n');
}

async function load(credentials: string): Promise<WasmProvider> {
  return WasmProvider.load({
    source: { bytes: await buildFixture('faulty') },
    cloudConfig: cloudConf,
    clusterName: CLUSTER,
    credentials: { file: credentials, reloadIntervalMs: 0 },
    pool: { size: 1 },
  });
}

beforeAll(async () => {
  keystone = await startFakeKeystone();
  dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-plugin-keystone-'));
  cloudConf = cloudConfText(USER.password);
  writeFileSync(join(dir, 'cloud.conf'), cloudConf);
  const entry = { name: 'openstack', hostsFromCatalog: true, keystone: { cloudConfigFile: 'cloud.conf' } };
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ credentials: [entry] }));
  provider = await load(join(dir, 'credentials.json'));
}, 60_000);

afterAll(async () => {
  await provider?.close();
  await keystone?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the faulty plugin reports in its error for `fault` (after `marker`). */
async function pluginSays(fault: string, marker: string, providerID = ''): Promise<string> {
  try {
    await provider.instancesV2()?.instanceMetadata(node(fault, providerID));
  } catch (err) {
    expect(err).toBeInstanceOf(InternalError);
    return (err as Error).message.split(marker)[1] ?? '';
  }
  throw new Error(`the ${fault} fault did not answer`);
}

describe('a plugin behind a keystone credential', () => {
  it('logs in once at load', () => {
    expect(keystone.logins).toHaveLength(1);
    expect(keystone.logins[0]?.token).toBeDefined();
  });

  it("gets its cloud.conf in ccm_initialize without [Global]'s password, the rest as it was", async () => {
    const input = JSON.parse(await pluginSays('init-input', 'input=')) as { cloudConfig: string; clusterName: string };
    expect(input.clusterName).toBe(CLUSTER);
    expect(input.cloudConfig).toBe(cloudConf.replace(`password = ${USER.password}\n`, ''));
    expect(input.cloudConfig).not.toContain(USER.password);
    expect(input.cloudConfig).toContain('floating-network-id = fip-net');
  });

  it('reads the catalog, URLs of its region and interface only, from its config', async () => {
    const catalog = JSON.parse(await pluginSays('config', 'config=', 'keystone.openstack.catalog')) as unknown;
    expect(catalog).toEqual({
      region: REGION,
      interface: 'public',
      endpoints: [{ type: 'compute', name: 'nova', url: keystone.cloudURL }],
    });
  });

  it('reaches the catalog host without an allowedHosts entry, with a token it never sees', async () => {
    const answer = JSON.parse(await pluginSays('http', 'answer=', `${keystone.cloudURL}/flavors`)) as {
      status: number;
      body: string;
    };
    expect(answer.status).toBe(200);
    expect(keystone.cloudRequests.at(-1)).toEqual({
      path: '/v2.1/flavors',
      token: keystone.logins[0]?.token,
      status: 200,
    });
    const echo = await pluginSays('http', 'answer=', `http://${keystone.cloudHost}/echo`);
    expect(echo).not.toContain(keystone.logins[0]?.token);
    expect(echo).toContain('[REDACTED]');
  });

  it('fails to load when the login fails, naming the credential and the status', async () => {
    writeFileSync(join(dir, 'wrong.conf'), cloudConfText('wrong-password'));
    const entry = { name: 'openstack', hostsFromCatalog: true, keystone: { cloudConfigFile: 'wrong.conf' } };
    writeFileSync(join(dir, 'wrong.json'), JSON.stringify({ credentials: [entry] }));
    await expect(load(join(dir, 'wrong.json'))).rejects.toThrow(
      `credential 'openstack': login to keystone ${keystone.authURL} failed: Keystone answered 401`,
    );
  });
});
