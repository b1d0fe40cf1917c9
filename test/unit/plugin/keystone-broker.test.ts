// The keystone credentials entry through the credential store and the broker, against a local Keystone-shaped server:
// the login at load and its catalog (filtered, URLs only, hosts from it), the token on the cloud's requests and never
// in an answer, one renewal on a 401 then the plugin's own 401, backoff with a clear error, a new session when the
// credentials change, TLS with the entry's own CA.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import type { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import { REDACTED } from '../../../host/src/plugin/broker/redact.ts';
import { selfSignedCertificate } from '../../../host/src/server/tls.ts';
import { type FramedAnswer, readAnswerFrame, requestFrame } from './support/frames.ts';
import { APP_CREDENTIAL, type FakeKeystone, REGION, startFakeKeystone, USER } from './support/keystone-server.ts';
import { recordingLogger } from './support/recording-logger.ts';
import { testBroker } from './support/test-broker.ts';

interface Setup {
  keystone: FakeKeystone;
  store: CredentialStore;
  broker: HttpBroker;
  dir: string;
  file: string;
  log: ReturnType<typeof recordingLogger>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A password entry (or `entry`'s fields) for the fake Keystone, logged in, behind a broker. */
async function setUp(options: { entry?: Record<string, unknown>; tls?: boolean; insecure?: boolean } = {}) {
  const certificate = options.tls ? selfSignedCertificate() : undefined;
  const keystone = await startFakeKeystone(certificate);
  cleanups.push(() => keystone.close());
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-keystone-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'password'), `${USER.password}\n`);
  writeFileSync(join(dir, 'app-secret'), APP_CREDENTIAL.secret);
  if (certificate) writeFileSync(join(dir, 'ca.pem'), certificate.cert);
  const file = join(dir, 'credentials.json');
  const keystoneFields = options.entry ?? {
    authURL: keystone.authURL,
    userName: USER.name,
    userDomainName: USER.domain,
    passwordFile: 'password',
    projectName: 'k8s',
    projectDomainName: 'Default',
    region: REGION,
    ...(certificate ? { caFile: 'ca.pem' } : {}),
  };
  const entry = {
    name: 'openstack',
    hostsFromCatalog: true,
    ...(options.insecure !== false && !options.tls ? { insecure: true } : {}),
    keystone:
      typeof keystoneFields.authURL === 'string' ? keystoneFields : { authURL: keystone.authURL, ...keystoneFields },
  };
  writeFileSync(file, JSON.stringify({ credentials: [entry] }));
  const log = recordingLogger();
  const store = await CredentialStore.open({
    file,
    reloadIntervalMs: 0,
    logger: log.logger,
    logins: { minBackoffMs: 60_000, maxBackoffMs: 60_000 },
  });
  cleanups.push(() => store.close());
  return { keystone, store, dir, file, log };
}

async function started(options: Parameters<typeof setUp>[0] = {}): Promise<Setup> {
  const setup = await setUp(options);
  await setup.store.startLogins();
  const broker = testBroker(setup.store.catalogHosts(), setup.store, { maxResponseBytes: 1 << 20 });
  cleanups.push(() => broker.close());
  return { ...setup, broker };
}

async function get(broker: HttpBroker, url: string, headers: Record<string, string> = {}): Promise<FramedAnswer> {
  const head = { method: 'GET', url, headers, timeoutMs: 0 };
  return readAnswerFrame(await broker.handleBytes(requestFrame(head), AbortSignal.timeout(5000)));
}

describe('keystone credentials: login at load', () => {
  it('logs in once, hands the plugin its region and interface of the catalog as URLs, and allows their hosts', async () => {
    const { keystone, store } = await started();
    expect(keystone.logins).toHaveLength(1);
    expect(keystone.logins[0]?.body).toEqual({
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: USER.name, domain: { name: USER.domain }, password: USER.password } },
        },
        scope: { project: { name: 'k8s', domain: { name: 'Default' } } },
      },
    });
    expect(JSON.parse(store.pluginConfig()['keystone.openstack.catalog'] as string)).toEqual({
      region: REGION,
      interface: 'public',
      endpoints: [{ type: 'compute', name: 'nova', url: keystone.cloudURL }],
    });
    // The only keystone entry: its catalog under the key without the credential's name as well.
    expect(store.pluginConfig()['keystone.catalog']).toBe(store.pluginConfig()['keystone.openstack.catalog']);
    expect(store.catalogHosts()).toEqual([keystone.cloudHost]);
    expect(JSON.stringify(store.pluginConfig())).not.toContain('token');
  });

  it("leaves Keystone's own endpoints out of the hosts the token goes to", async () => {
    const { keystone, store } = await setUp();
    keystone.extraServices.push(
      {
        type: 'identity',
        name: 'keystone',
        endpoints: [{ interface: 'public', region_id: REGION, url: 'http://127.0.0.2:5000/v3' }],
      },
      {
        type: 'other',
        name: 'on-keystone',
        endpoints: [{ interface: 'public', region_id: REGION, url: `${keystone.authURL}/x` }],
      },
    );
    await store.startLogins();
    const catalog = JSON.parse(store.pluginConfig()['keystone.catalog'] as string) as { endpoints: unknown[] };
    expect(catalog.endpoints).toHaveLength(3);
    expect(store.catalogHosts()).toEqual([keystone.cloudHost]);
  });

  it('names each catalog by its credential when there are two keystone entries', async () => {
    const { keystone, store, file } = await setUp();
    const entry = (name: string, keystoneFields: Record<string, string>) => ({
      name,
      hostsFromCatalog: true,
      insecure: true,
      keystone: { authURL: keystone.authURL, region: REGION, ...keystoneFields },
    });
    writeFileSync(
      file,
      JSON.stringify({
        credentials: [
          entry('one', { userName: USER.name, userDomainName: USER.domain, passwordFile: 'password' }),
          entry('two', { applicationCredentialID: APP_CREDENTIAL.id, applicationCredentialSecretFile: 'app-secret' }),
        ],
      }),
    );
    expect(await store.reload()).toBe(true);
    await store.startLogins();
    expect(Object.keys(store.pluginConfig()).sort()).toEqual(['keystone.one.catalog', 'keystone.two.catalog']);
  });

  it('logs in with an application credential, unscoped, and attaches its token as well', async () => {
    const { keystone, broker } = await started({
      entry: {
        applicationCredentialID: APP_CREDENTIAL.id,
        applicationCredentialSecretFile: 'app-secret',
        region: REGION,
      },
    });
    expect(keystone.logins.map((l) => l.body)).toEqual([
      {
        auth: {
          identity: {
            methods: ['application_credential'],
            application_credential: { id: APP_CREDENTIAL.id, secret: APP_CREDENTIAL.secret },
          },
        },
      },
    ]);
    expect((await get(broker, `${keystone.cloudURL}/flavors`)).head.status).toBe(200);
    expect(keystone.cloudRequests.at(-1)?.token).toBe(keystone.logins[0]?.token);
  });

  it('fails the load naming the credential and what Keystone answered', async () => {
    const { keystone, store } = await setUp();
    keystone.password = 'changed';
    await expect(store.startLogins()).rejects.toThrow(
      `credential 'openstack': login to keystone ${keystone.authURL} failed: Keystone answered 401 (Unauthorized: The request you have made requires authentication.)`,
    );
  });
});

describe('keystone credentials: the token on the cloud requests', () => {
  it('attaches the token to the catalog hosts, which the plugin never sees', async () => {
    const { keystone, broker } = await started();
    const answer = await get(broker, `${keystone.cloudURL}/flavors`, { 'x-auth-token': 'the plugin cannot choose' });
    expect(answer.head.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({ flavors: [{ id: '1', name: 'm1.small' }] });
    expect(keystone.cloudRequests).toEqual([{ path: '/v2.1/flavors', token: keystone.logins[0]?.token, status: 200 }]);
  });

  it('redacts the token and the password from an answer that echoes them', async () => {
    const { keystone, broker } = await started();
    const answer = await get(broker, `http://${keystone.cloudHost}/echo`, { 'x-note': USER.password });
    const token = keystone.logins[0]?.token as string;
    expect(answer.head.status).toBe(200);
    const text = answer.body.toString() + JSON.stringify(answer.head.headers);
    expect(text).not.toContain(token);
    expect(text).not.toContain(USER.password);
    expect(answer.head.headers?.['x-echo']).toBe(REDACTED);
    expect(text).toContain(`"x-auth-token":"${REDACTED}"`);
  });

  it('renews a token the cloud refuses and sends the request once more, with the new token', async () => {
    const { keystone, broker } = await started();
    keystone.revoke(keystone.logins[0]?.token as string);
    const answer = await get(broker, `${keystone.cloudURL}/flavors`);
    expect(answer.head.status).toBe(200);
    expect(keystone.logins).toHaveLength(2);
    expect(keystone.cloudRequests.map((r) => [r.token, r.status])).toEqual([
      [keystone.logins[0]?.token, 401],
      [keystone.logins[1]?.token, 200],
    ]);
  });

  it('renews once: a second 401 is the answer the plugin gets', async () => {
    const { keystone, broker } = await started();
    const answer = await get(broker, `http://${keystone.cloudHost}/always-401`);
    expect(answer.head.status).toBe(401);
    expect(keystone.logins).toHaveLength(2);
    expect(keystone.cloudRequests).toHaveLength(2);
  });

  it('answers a 401 at once, without a login, when the last login for a 401 went out less than a second ago', async () => {
    const { keystone, broker } = await started();
    await get(broker, `http://${keystone.cloudHost}/always-401`);
    expect(keystone.logins).toHaveLength(2);
    const again = await get(broker, `http://${keystone.cloudHost}/always-401`);
    expect(again.head.status).toBe(401);
    expect(keystone.logins).toHaveLength(2);
    expect(keystone.cloudRequests).toHaveLength(3);
    // The session still serves the endpoints that take it.
    expect((await get(broker, `${keystone.cloudURL}/flavors`)).head.status).toBe(200);
    expect(keystone.logins).toHaveLength(2);
  });

  it('renews once for many requests refused together', async () => {
    const { keystone, broker } = await started();
    keystone.revoke(keystone.logins[0]?.token as string);
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(broker, `${keystone.cloudURL}/flavors`)));
    expect(answers.map((a) => a.head.status)).toEqual(Array(8).fill(200));
    expect(keystone.logins).toHaveLength(2);
  });

  it('answers Network naming the credential and the status while logins fail, without a login per request', async () => {
    const { keystone, broker } = await started();
    keystone.revoke(keystone.logins[0]?.token as string);
    keystone.failWith = 503;
    const first = await get(broker, `${keystone.cloudURL}/flavors`);
    expect(first.head.error).toEqual({
      code: 'Network',
      message: `credential 'openstack': login to keystone ${keystone.authURL} failed: Keystone answered 503 (Error: The request you have made requires authentication.)`,
    });
    const second = await get(broker, `${keystone.cloudURL}/flavors`);
    expect(second.head.error?.message).toMatch(/failed: Keystone answered 503 .* ago; next login in \d+\.\d s\)$/);
    expect(keystone.logins).toHaveLength(2);
  });

  it('logs in with the new password once the credentials change', async () => {
    const { keystone, broker, store, dir } = await started();
    keystone.password = 'pw-rotated-2';
    writeFileSync(join(dir, 'password'), 'pw-rotated-2');
    expect(await store.reload()).toBe(true);
    expect((await get(broker, `${keystone.cloudURL}/flavors`)).head.status).toBe(200);
    expect(keystone.logins).toHaveLength(2);
    expect(JSON.stringify(keystone.logins[1]?.body)).toContain('pw-rotated-2');
    expect(keystone.cloudRequests.at(-1)?.token).toBe(keystone.logins[1]?.token);
    // The same files again: nothing changed, the session stays.
    expect(await store.reload()).toBe(false);
    await get(broker, `${keystone.cloudURL}/flavors`);
    expect(keystone.logins).toHaveLength(2);
  });
});

describe('keystone credentials: TLS', () => {
  it("trusts the entry's CA for Keystone and the catalog hosts, and attaches nothing to a plain http endpoint", async () => {
    const { keystone, store, broker, log } = await (async () => {
      const setup = await setUp({ tls: true });
      setup.keystone.extraServices.push({
        type: 'network',
        name: 'neutron',
        endpoints: [{ interface: 'public', region_id: REGION, url: 'http://127.0.0.1:9696' }],
      });
      await setup.store.startLogins();
      const b = testBroker(setup.store.catalogHosts(), setup.store, { maxResponseBytes: 1 << 20 });
      cleanups.push(() => b.close());
      return { ...setup, broker: b };
    })();
    expect(keystone.authURL.startsWith('https://')).toBe(true);
    expect(store.catalogHosts()).toEqual([keystone.cloudHost]);
    expect(log.records.find((r) => r.message.startsWith('catalog endpoint over plain http'))?.fields).toMatchObject({
      credential: 'openstack',
      endpoint: 'http://127.0.0.1:9696',
    });
    expect((await get(broker, `${keystone.cloudURL}/flavors`)).head.status).toBe(200);
  });

  it('refuses an insecure entry whose catalog names a host off this machine', async () => {
    const { keystone, store } = await setUp();
    keystone.extraServices.push({
      type: 'network',
      name: 'neutron',
      endpoints: [{ interface: 'public', region_id: REGION, url: 'http://neutron.example:9696' }],
    });
    await expect(store.startLogins()).rejects.toThrow(
      "credential 'openstack' is insecure, but its catalog names neutron.example:9696, which is not a loopback address",
    );
  });
});
