// OCCM's cloud.conf as the source of a keystone entry (broker/cloud-conf.ts): [Global]'s auth keys read as gophercloud
// reads them, every unsupported key refused by name, and the plugin's copy of the file without its secret keys.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cloudConfAuthURL,
  keystoneFromCloudConf,
  withoutSecretKeys,
} from '../../../host/src/plugin/broker/cloud-conf.ts';
import { readKeystoneLoginSync } from '../../../host/src/plugin/broker/keystone-entry.ts';
import { KeystoneFlow } from '../../../host/src/plugin/broker/keystone-flow.ts';

const AT = 'creds.json: credentials[0] (os)';
const FILE = '/etc/kubernetes/cloud.conf';
const WHERE = `${AT}.keystone: ${FILE}`;

const conf = (...lines: string[]): string => lines.join('\n');
const read = (...lines: string[]) => keystoneFromCloudConf(conf(...lines), FILE, AT);
const errorOf = (...lines: string[]): string => {
  try {
    read(...lines);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('read');
};

const OCCM = [
  '[Global]',
  'auth-url = https://keystone.example:5000/v3',
  'username = ccm',
  'password = "pa;ss#word"',
  'user-domain-name = Default',
  'tenant-name = k8s',
  'tenant-domain-name = Default',
  'region = RegionOne',
  '',
  '[LoadBalancer]',
  'floating-network-id = abc',
  'password = not-a-global-key',
];

describe('cloud.conf: [Global] into a keystone login', () => {
  it('reads the password login OCCM would make, leaving the other sections alone', () => {
    expect(read(...OCCM)).toEqual({
      settings: {
        authURL: 'https://keystone.example:5000/v3',
        auth: { method: 'password', user: { name: 'ccm', domain: { name: 'Default' } } },
        scope: { project: { name: 'k8s', domain: { name: 'Default' } } },
        region: 'RegionOne',
        interface: 'public',
      },
      secret: 'pa;ss#word',
      tlsInsecure: false,
    });
  });

  it('takes the project-* aliases, IDs, os-endpoint-type, ca-file and tls-insecure, keys in any case, lines indented', () => {
    const login = read(
      '  [global]',
      '  Auth-URL=http://127.0.0.1:5000/v3',
      'user-id = u-1',
      'password = pw',
      'project-id = p-1',
      'region = RegionOne',
      'os-endpoint-type = internalURL',
      'ca-file = ca.pem',
      'tls-insecure = true',
    );
    expect(login).toEqual({
      settings: {
        authURL: 'http://127.0.0.1:5000/v3',
        auth: { method: 'password', user: { id: 'u-1' } },
        scope: { project: { id: 'p-1' } },
        region: 'RegionOne',
        interface: 'internal',
        caFile: '/etc/kubernetes/ca.pem',
      },
      secret: 'pw',
      tlsInsecure: true,
    });
  });

  it('uses domain-* for the user and the project when a project is named, and as the scope when none is', () => {
    const projectScoped = read(
      '[Global]',
      'auth-url = https://k.example/v3',
      'username = ccm',
      'password = pw',
      'domain-name = Corp',
      'project-name = k8s',
      'region = r',
    );
    expect(projectScoped.settings).toMatchObject({
      auth: { user: { name: 'ccm', domain: { name: 'Corp' } } },
      scope: { project: { name: 'k8s', domain: { name: 'Corp' } } },
    });
    const domainScoped = read(
      '[Global]',
      'auth-url = https://k.example/v3',
      'user-id = u-1',
      'password = pw',
      'domain-id = d-1',
      'region = r',
    );
    expect(domainScoped.settings.scope).toEqual({ domain: { id: 'd-1' } });
    expect(
      errorOf(
        '[Global]',
        'auth-url = https://k.example/v3',
        'username = ccm',
        'password = pw',
        'domain-id = d',
        'region = r',
      ),
    ).toBe(`${WHERE}: [Global] username needs user-domain-id or user-domain-name (or domain-id or domain-name)`);
  });

  it('prefers an application credential to a password, by ID alone or by name with its owner', () => {
    const byId = read(
      '[Global]',
      'auth-url = https://k.example/v3',
      'username = ccm',
      'user-domain-name = Default',
      'password = pw',
      'tenant-name = k8s',
      'application-credential-id = ac-1',
      'application-credential-name = ignored',
      'application-credential-secret = acs',
      'region = r',
    );
    expect(byId).toMatchObject({
      settings: { auth: { method: 'application_credential', credential: { id: 'ac-1' } } },
      secret: 'acs',
    });
    expect(byId.settings).not.toHaveProperty('scope');
    const byName = read(
      '[Global]',
      'auth-url = https://k.example/v3',
      'username = ccm',
      'domain-name = Default',
      'application-credential-name = cred',
      'application-credential-secret = acs',
      'region = r',
    );
    expect(byName.settings.auth).toEqual({
      method: 'application_credential',
      credential: { name: 'cred', user: { name: 'ccm', domain: { name: 'Default' } } },
    });
  });

  it.each([
    ['trust-id = t', "[Global] key 'trust-id' is not supported for a brokered login"],
    ['use-clouds = true', "[Global] key 'use-clouds' is not supported for a brokered login"],
    ['cert-file = c.pem', "[Global] key 'cert-file' is not supported for a brokered login"],
    ['tls-insecure = maybe', '[Global] tls-insecure must be true or false'],
    ['region = again', '[Global] region is given more than once'],
    ['tenant-id = x\nproject-id = y', '[Global] project-id and the key it stands for disagree'],
    ['os-endpoint-type = everywhere', '[Global].os-endpoint-type must be one of public, internal, admin'],
  ])('refuses %s', (line, message) => {
    expect(errorOf(...OCCM.slice(0, 8), line)).toBe(`${WHERE}: ${message}`);
  });

  it.each([
    [['[LoadBalancer]', 'x = 1'], 'no [Global] section with auth keys'],
    [
      ['[Global]', 'auth-url = https://k.example/v3', 'username = u', 'user-domain-id = d', 'region = r'],
      '[Global] password is required',
    ],
    [['[Global]', 'username = u', 'user-domain-id = d', 'password = p', 'region = r'], '[Global].auth-url is required'],
    [['[Global]', 'auth-url = https://k/v3', 'user-id = u', 'password = p'], '[Global].region is required'],
    [
      ['[Global]', 'auth-url = https://k/v3', 'user-id = u', 'password = p', 'tenant-name = t', 'region = r'],
      '[Global] tenant-name needs tenant-domain-id or tenant-domain-name (or domain-id or domain-name)',
    ],
  ])('refuses %j', (lines, message) => {
    expect(errorOf(...lines)).toBe(`${WHERE}: ${message}`);
  });
});

describe('cloud.conf: the entry read from the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-cloud-conf-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes the entry insecure with tls-insecure, on loopback hosts only, and reads the CA next to the file', () => {
    const file = join(dir, 'cloud.conf');
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(
      file,
      conf(
        '[Global]',
        'auth-url=http://127.0.0.1:5000/v3',
        'user-id=u',
        'password=pw',
        'region=r',
        'tls-insecure=true',
        'ca-file=ca.pem',
      ),
    );
    const login = readKeystoneLoginSync({ source: 'cloudConf', file }, AT, false, []);
    expect(login).toMatchObject({ secret: 'pw', insecure: true, ca: expect.stringContaining('CERTIFICATE') });
    expect(login.cloudConf).toContain('auth-url');
    expect(() =>
      readKeystoneLoginSync({ source: 'cloudConf', file }, AT, false, [{ hostname: 'nova.example', port: 8774 }]),
    ).toThrow(`${AT}: insecure (tls-insecure), but host 'nova.example' is not a loopback address`);
    writeFileSync(
      file,
      conf('[Global]', 'auth-url=http://keystone.example/v3', 'user-id=u', 'password=pw', 'region=r'),
    );
    expect(() => readKeystoneLoginSync({ source: 'cloudConf', file }, AT, false, [])).toThrow(
      `${AT}.keystone.authURL must be https`,
    );
  });
});

describe("cloud.conf: the plugin's copy", () => {
  const text = conf(
    '# comment',
    '[Global]',
    'auth-url = https://keystone.example:5000/v3/',
    'Password = "secret one"',
    '  application-credential-secret=two \\',
    '  continued',
    'trustee-password = three',
    'region = RegionOne',
    '[LoadBalancer]',
    'password = kept, not [Global]',
    '',
  );

  it("loses [Global]'s secret keys (and their continuation lines), and nothing else", () => {
    expect(withoutSecretKeys(text)).toBe(
      conf(
        '# comment',
        '[Global]',
        'auth-url = https://keystone.example:5000/v3/',
        'region = RegionOne',
        '[LoadBalancer]',
        'password = kept, not [Global]',
        '',
      ),
    );
  });

  it('is stripped by the keystone flow of the same Keystone only', () => {
    const login = {
      settings: read(...OCCM).settings,
      secret: 'pw',
      insecure: false,
    };
    const flow = new KeystoneFlow(login);
    expect(cloudConfAuthURL(text)).toBe('https://keystone.example:5000/v3');
    expect(flow.pluginCloudConfig(text)).toBe(withoutSecretKeys(text));
    const other = text.replace('keystone.example', 'other.example');
    expect(flow.pluginCloudConfig(other)).toBe(other);
    expect(flow.pluginCloudConfig('{"json": "config"}')).toBe('{"json": "config"}');
  });
});
