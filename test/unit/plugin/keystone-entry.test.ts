// The keystone credentials entry's strict parser (broker/keystone-entry.ts, keystone-settings.ts): every field, every
// error naming the field, the files read at start (checkCredentialFile), and the login body each shape gives.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCredentialFile, parseCredentialFile } from '../../../host/src/plugin/broker/credential-file.ts';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import { readKeystoneLoginSync } from '../../../host/src/plugin/broker/keystone-entry.ts';
import { authRequest } from '../../../host/src/plugin/broker/keystone-flow.ts';
import { recordingLogger } from './support/recording-logger.ts';

const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-keystone-entry-'));
const WHERE = join(dir, 'credentials.json');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const AT = `${WHERE}: credentials[0] (os)`;
const BASE = {
  authURL: 'https://keystone.example:5000/v3',
  userName: 'ccm',
  userDomainName: 'Default',
  passwordFile: 'os/password',
  projectName: 'k8s',
  projectDomainName: 'Default',
  region: 'RegionOne',
};

function entryOf(keystone: unknown, extra: Record<string, unknown> = { hostsFromCatalog: true }) {
  const [credential] = parseCredentialFile(
    JSON.stringify({ credentials: [{ name: 'os', ...extra, keystone }] }),
    WHERE,
  );
  if (credential?.secret.kind !== 'login' || credential.secret.login.flow !== 'keystone')
    throw new Error('not a login');
  return { credential, entry: credential.secret.login.entry };
}

function settingsOf(keystone: Record<string, unknown>, extra?: Record<string, unknown>) {
  const { entry } = entryOf(keystone, extra);
  if (entry.source !== 'fields') throw new Error('not fields');
  return entry;
}

function errorOf(keystone: unknown, extra?: Record<string, unknown>): string {
  try {
    entryOf(keystone, extra);
  } catch (err) {
    expect((err as Error).name).toBe('CredentialFileError');
    return (err as Error).message;
  }
  throw new Error('parsed');
}

const without = (...keys: string[]) =>
  Object.fromEntries(Object.entries(BASE).filter(([k]) => !keys.includes(k))) as Record<string, string>;

describe('keystone entry: fields', () => {
  it('reads a password login scoped to a project by name, files relative to the credentials file', () => {
    expect(settingsOf({ ...BASE, authURL: 'https://keystone.example:5000/v3/', interface: 'internal' })).toEqual({
      source: 'fields',
      secretFile: join(dir, 'os/password'),
      settings: {
        authURL: 'https://keystone.example:5000/v3',
        auth: { method: 'password', user: { name: 'ccm', domain: { name: 'Default' } } },
        scope: { project: { name: 'k8s', domain: { name: 'Default' } } },
        region: 'RegionOne',
        interface: 'internal',
      },
    });
  });

  it('takes users, projects and domains by ID, a domain scope, no scope, and a CA file', () => {
    const byId = settingsOf({
      ...without('userName', 'userDomainName', 'projectName', 'projectDomainName'),
      userID: 'u-1',
      projectID: 'p-1',
      caFile: '/etc/ssl/os-ca.pem',
      interface: 'admin',
    }).settings;
    expect(byId).toMatchObject({
      auth: { method: 'password', user: { id: 'u-1' } },
      scope: { project: { id: 'p-1' } },
      interface: 'admin',
      caFile: '/etc/ssl/os-ca.pem',
    });
    const domainScoped = settingsOf({
      ...without('projectName', 'projectDomainName', 'userDomainName'),
      userDomainID: 'd-1',
      domainID: 'd-1',
    }).settings;
    expect(domainScoped).toMatchObject({
      auth: { user: { name: 'ccm', domain: { id: 'd-1' } } },
      scope: { domain: { id: 'd-1' } },
      interface: 'public',
    });
    expect(
      settingsOf({ ...without('projectName', 'projectDomainName'), domainName: 'Default' }).settings.scope,
    ).toEqual({ domain: { name: 'Default' } });
    expect(
      settingsOf({ ...without('projectName', 'projectDomainName'), caFile: 'ca.pem' }).settings,
    ).not.toHaveProperty('scope');
    expect(settingsOf({ ...BASE, caFile: 'os/ca.pem' }).settings.caFile).toBe(join(dir, 'os/ca.pem'));
  });

  it('takes an application credential by ID, or by name with its owner', () => {
    const app = { authURL: BASE.authURL, region: 'RegionOne', applicationCredentialSecretFile: 's' };
    expect(settingsOf({ ...app, applicationCredentialID: 'ac-1' })).toMatchObject({
      secretFile: join(dir, 's'),
      settings: { auth: { method: 'application_credential', credential: { id: 'ac-1' } } },
    });
    expect(
      settingsOf({ ...app, applicationCredentialName: 'ccm-cred', userName: 'ccm', userDomainID: 'default' }).settings
        .auth,
    ).toEqual({
      method: 'application_credential',
      credential: { name: 'ccm-cred', user: { name: 'ccm', domain: { id: 'default' } } },
    });
  });

  it('takes its settings from a cloud.conf instead', () => {
    expect(entryOf({ cloudConfigFile: 'cloud.conf' }).entry).toEqual({
      source: 'cloudConf',
      file: join(dir, 'cloud.conf'),
    });
  });

  it('takes hosts, hosts from the catalog, or both', () => {
    expect(entryOf(BASE, { hosts: ['nova.example:8774'] }).credential).toMatchObject({
      hosts: [{ hostname: 'nova.example', port: 8774 }],
      hostsFromCatalog: false,
    });
    expect(entryOf(BASE).credential).toMatchObject({ hosts: [], hostsFromCatalog: true });
    expect(entryOf(BASE, { hosts: ['a.example'], hostsFromCatalog: true }).credential.hosts).toHaveLength(1);
  });

  it.each([
    ['not an object', [], undefined, `${AT}.keystone must be an object`],
    ['an unknown field', { ...BASE, tenantName: 'x' }, undefined, `${AT}.keystone: unknown field 'tenantName'`],
    ['a number', { ...BASE, region: 1 }, undefined, `${AT}.keystone.region must be a non-empty single-line string`],
    ['an empty string', { ...BASE, userName: '' }, undefined, `${AT}.keystone.userName must be a non-empty`],
    ['two lines', { ...BASE, projectName: 'a\nb' }, undefined, `${AT}.keystone.projectName must be a non-empty`],
    [
      'cloudConfigFile with fields',
      { cloudConfigFile: 'c', region: 'r' },
      undefined,
      `${AT}.keystone: 'region' is not given with cloudConfigFile (the file says it)`,
    ],
    [
      'no secret',
      without('passwordFile'),
      undefined,
      `${AT}.keystone needs exactly one of passwordFile, applicationCredentialSecretFile`,
    ],
    [
      'two secrets',
      { ...BASE, applicationCredentialSecretFile: 's' },
      undefined,
      `${AT}.keystone needs exactly one of passwordFile, applicationCredentialSecretFile`,
    ],
    ['no authURL', without('authURL'), undefined, `${AT}.keystone.authURL is required`],
    ['a bad authURL', { ...BASE, authURL: 'keystone:5000' }, undefined, `${AT}.keystone.authURL must be an https URL`],
    ['not a URL', { ...BASE, authURL: 'https://' }, undefined, `${AT}.keystone.authURL is not a URL`],
    [
      'a query in authURL',
      { ...BASE, authURL: 'https://k.example/v3?x=1' },
      undefined,
      `${AT}.keystone.authURL must have no user, query or fragment`,
    ],
    [
      'plain http',
      { ...BASE, authURL: 'http://keystone.example/v3' },
      undefined,
      `${AT}.keystone.authURL must be https (plain http only with "insecure": true, for a loopback test host)`,
    ],
    [
      'insecure off this machine',
      { ...BASE, authURL: 'http://keystone.example/v3' },
      { hostsFromCatalog: true, insecure: true },
      `${AT}.keystone: insecure, but the authURL's host 'keystone.example' is not a loopback address`,
    ],
    ['no region', without('region'), undefined, `${AT}.keystone.region is required`],
    [
      'a bad interface',
      { ...BASE, interface: 'publicURL' },
      undefined,
      `${AT}.keystone.interface must be one of public, internal, admin`,
    ],
    ['user ID and name', { ...BASE, userID: 'u' }, undefined, `${AT}.keystone: give userID or userName, not both`],
    [
      'user ID with a domain',
      { ...without('userName'), userID: 'u' },
      undefined,
      `${AT}.keystone: userID names it alone: no userDomainID or userDomainName`,
    ],
    [
      'user name alone',
      without('userDomainName'),
      undefined,
      `${AT}.keystone: userName needs userDomainID or userDomainName`,
    ],
    [
      'two user domains',
      { ...BASE, userDomainID: 'd' },
      undefined,
      `${AT}.keystone: give userDomainID or userDomainName, not both`,
    ],
    [
      'a user domain alone',
      { ...without('userName'), userID: undefined },
      undefined,
      `${AT}.keystone: userDomainID or userDomainName is given without userName`,
    ],
    [
      'project ID with a domain',
      { ...without('projectName'), projectID: 'p' },
      undefined,
      `${AT}.keystone: projectID names it alone: no projectDomainID or projectDomainName`,
    ],
    [
      'project name alone',
      without('projectDomainName'),
      undefined,
      `${AT}.keystone: projectName needs projectDomainID or projectDomainName`,
    ],
    [
      'project and domain scopes',
      { ...BASE, domainName: 'Default' },
      undefined,
      `${AT}.keystone: a token is scoped to a project or a domain: give projectID or projectName or domainID or domainName, not both`,
    ],
    [
      'two domains',
      { ...without('projectName', 'projectDomainName'), domainID: 'a', domainName: 'b' },
      undefined,
      `${AT}.keystone: give domainID or domainName, not both`,
    ],
    [
      'a password without a user',
      without('userName', 'userDomainName'),
      undefined,
      `${AT}.keystone: a password needs userID or userName`,
    ],
    [
      'a password with an application credential',
      { ...BASE, applicationCredentialID: 'a' },
      undefined,
      `${AT}.keystone: applicationCredentialID is for an application credential, not a password`,
    ],
  ])('refuses %s', (_what, keystone, extra, message) => {
    expect(errorOf(keystone, extra)).toContain(message);
  });

  it.each([
    [
      'a scope',
      { projectID: 'p', applicationCredentialID: 'a' },
      'an application credential is scoped already: no projectID or projectName or domainID or domainName',
    ],
    [
      'no ID or name',
      {},
      'an application credential needs exactly one of applicationCredentialID, applicationCredentialName',
    ],
    [
      'ID and name',
      { applicationCredentialID: 'a', applicationCredentialName: 'b' },
      'an application credential needs exactly one of applicationCredentialID, applicationCredentialName',
    ],
    [
      'an ID with a user',
      { applicationCredentialID: 'a', userID: 'u' },
      'applicationCredentialID names the credential alone: no userID or userName',
    ],
    [
      'a name without its owner',
      { applicationCredentialName: 'a' },
      'applicationCredentialName needs its owner, userID or userName',
    ],
  ])('refuses an application credential with %s', (_what, fields, message) => {
    const keystone = { authURL: BASE.authURL, region: 'r', applicationCredentialSecretFile: 's', ...fields };
    expect(errorOf(keystone)).toBe(`${AT}.keystone: ${message}`);
  });

  it.each([
    ['hostsFromCatalog not a boolean', { hostsFromCatalog: 'yes' }, `${AT}.hostsFromCatalog must be true or false`],
    ['no hosts', {}, `${AT}.hosts must be a non-empty list of host[:port]`],
  ])('refuses %s', (_what, extra, message) => {
    expect(errorOf(BASE, extra)).toBe(message);
  });

  it('refuses hostsFromCatalog on an entry without a login', () => {
    expect(() =>
      parseCredentialFile(
        JSON.stringify({ credentials: [{ name: 'b', hostsFromCatalog: true, bearerToken: 'tok' }] }),
        WHERE,
      ),
    ).toThrow(
      `${WHERE}: credentials[0] (b).hostsFromCatalog is for a login entry (keystone), whose login gives a catalog`,
    );
  });

  it('refuses to expose a login to the plugin', async () => {
    writeFileSync(join(dir, 'pw'), 'secret-pw');
    const file = join(dir, 'exposed.json');
    const keystone = { ...BASE, passwordFile: 'pw' };
    writeFileSync(file, JSON.stringify({ credentials: [{ name: 'os', hostsFromCatalog: true, keystone }] }));
    await expect(
      CredentialStore.open({
        file,
        reloadIntervalMs: 0,
        exposeToPlugin: { k: 'os' },
        logger: recordingLogger().logger,
      }),
    ).rejects.toThrow("exposeToPlugin: credential 'os' is a login, whose session only the host holds");
  });
});

describe('keystone entry: files read at start', () => {
  const check = (keystone: Record<string, unknown>, extra: Record<string, unknown> = { hostsFromCatalog: true }) =>
    checkCredentialFile(JSON.stringify({ credentials: [{ name: 'os', ...extra, keystone }] }), WHERE);

  it('reads the secret without its final newline, and the CA', () => {
    writeFileSync(join(dir, 'password'), 'pw-1\n');
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const { entry, credential } = entryOf({ ...BASE, passwordFile: 'password', caFile: 'ca.pem' });
    const login = readKeystoneLoginSync(entry, AT, credential.insecure, credential.hosts);
    expect(login).toMatchObject({ secret: 'pw-1', insecure: false, ca: expect.stringContaining('BEGIN CERTIFICATE') });
    expect(() => check({ ...BASE, passwordFile: 'password', caFile: 'ca.pem' })).not.toThrow();
  });

  it.each([
    ['a missing secret', { passwordFile: 'absent' }, `${AT}.keystone: cannot read ${join(dir, 'absent')}: ENOENT`],
    ['an empty secret', { passwordFile: 'empty' }, `${AT}.keystone: ${join(dir, 'empty')} is empty`],
    [
      'a secret of two lines',
      { passwordFile: 'lines' },
      `${AT}.keystone: ${join(dir, 'lines')} holds more than one line`,
    ],
    [
      'a CA that is not PEM',
      { passwordFile: 'password', caFile: 'empty-ca' },
      `${AT}.keystone: ${join(dir, 'empty-ca')} holds no PEM certificate`,
    ],
  ])('refuses %s, naming the file', (_what, fields, message) => {
    writeFileSync(join(dir, 'password'), 'pw-1');
    writeFileSync(join(dir, 'empty'), '\n');
    writeFileSync(join(dir, 'lines'), 'a\nb\n');
    writeFileSync(join(dir, 'empty-ca'), 'not a certificate');
    expect(() => check({ ...BASE, ...fields })).toThrow(message);
  });
});

describe('keystone login body', () => {
  it('is the password method with a user by ID, scoped to a domain by ID', () => {
    const settings = settingsOf({
      ...without('userName', 'userDomainName', 'projectName', 'projectDomainName'),
      userID: 'u-1',
      domainID: 'd-1',
    }).settings;
    expect(authRequest({ settings, secret: 'pw', insecure: false })).toEqual({
      auth: {
        identity: { methods: ['password'], password: { user: { id: 'u-1', password: 'pw' } } },
        scope: { domain: { id: 'd-1' } },
      },
    });
  });

  it('is the application_credential method with a credential by name and its owner, and no scope', () => {
    const settings = settingsOf({
      authURL: BASE.authURL,
      region: 'r',
      applicationCredentialSecretFile: 's',
      applicationCredentialName: 'cred',
      userID: 'u-1',
    }).settings;
    expect(authRequest({ settings, secret: 'sec', insecure: false })).toEqual({
      auth: {
        identity: {
          methods: ['application_credential'],
          application_credential: { name: 'cred', user: { id: 'u-1' }, secret: 'sec' },
        },
      },
    });
  });
});
