// The `keystone` kind of credentials entry: an OpenStack identity the host logs in with (Keystone v3, password or
// application credential) for a token it attaches to the cloud's requests (keystone-flow.ts); the plugin never sees
// the secret or the token. Either the fields, with the secret in a file of the mounted Secret:
//
//   {"name": "openstack", "hostsFromCatalog": true,
//    "keystone": {"authURL": "https://keystone.example:5000/v3", "userName": "ccm", "userDomainName": "Default",
//                 "passwordFile": "openstack/password", "projectName": "k8s", "projectDomainName": "Default",
//                 "region": "RegionOne", "interface": "public"}}
//
// or `{"cloudConfigFile": "/etc/kubernetes/cloud.conf"}`: OCCM's cloud.conf, whose [Global] section gives the same
// (cloud-conf.ts). Relative file names are relative to the credentials file's directory. Messages never include a
// secret.
import { dirname, resolve } from 'node:path';
import { errorMessage } from '../../util/error-message.ts';
import { CONFIG_FILE_CAP, KEY_FILE_CAP, readRegularFile, readRegularFileSync } from '../../util/read-regular-file.ts';
import { type HostPort, isLoopback } from './allow-list.ts';
import { keystoneFromCloudConf } from './cloud-conf.ts';
import { CredentialFileError } from './credential-file-error.ts';
import {
  type DomainRef,
  type FieldNames,
  keystoneSettings,
  type KeystoneSettings,
  type ProjectRef,
  type UserRef,
} from './keystone-settings.ts';

export type { KeystoneSettings } from './keystone-settings.ts';

export type KeystoneEntry =
  { source: 'fields'; settings: KeystoneSettings; secretFile: string } | { source: 'cloudConf'; file: string };

/** An entry with its files read: what a login uses. */
export interface KeystoneLogin {
  settings: KeystoneSettings;
  /** The password or the application credential's secret. */
  secret: string;
  /** The CA's PEM text, when the entry names one. */
  ca?: string;
  /** Plain http allowed (to loopback hosts only): the entry's `insecure`, or cloud.conf's tls-insecure. */
  insecure: boolean;
  /** The cloud.conf's text, when the entry reads one (so a change to it shows). */
  cloudConf?: string;
}

const FIELDS = [
  'authURL',
  'userID',
  'userName',
  'userDomainID',
  'userDomainName',
  'passwordFile',
  'applicationCredentialID',
  'applicationCredentialName',
  'applicationCredentialSecretFile',
  'projectID',
  'projectName',
  'projectDomainID',
  'projectDomainName',
  'domainID',
  'domainName',
  'region',
  'interface',
  'caFile',
  'cloudConfigFile',
];
const FIELD_SET = new Set(FIELDS);

/** Parses the `keystone` object of the entry at `at` in the credentials file `where`; `insecure` is the entry's. */
export function parseKeystoneEntry(value: unknown, at: string, where: string, insecure: boolean): KeystoneEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CredentialFileError(`${at}.keystone must be an object`);
  }
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !FIELD_SET.has(key));
  if (unknown !== undefined) {
    throw new CredentialFileError(`${at}.keystone: unknown field '${unknown}' (known: ${FIELDS.join(', ')})`);
  }
  for (const [key, v] of Object.entries(fields)) {
    if (typeof v !== 'string' || v === '' || /[\r\n]/.test(v)) {
      throw new CredentialFileError(`${at}.keystone.${key} must be a non-empty single-line string`);
    }
  }
  const text = fields as Record<string, string>;
  const base = dirname(where);
  if (text.cloudConfigFile !== undefined) {
    const other = Object.keys(text).find((key) => key !== 'cloudConfigFile');
    if (other !== undefined) {
      throw new CredentialFileError(`${at}.keystone: '${other}' is not given with cloudConfigFile (the file says it)`);
    }
    return { source: 'cloudConf', file: resolve(base, text.cloudConfigFile) };
  }
  const has = (key: string): boolean => text[key] !== undefined;
  const secrets = ['passwordFile', 'applicationCredentialSecretFile'].filter(has);
  if (secrets.length !== 1) {
    throw new CredentialFileError(
      `${at}.keystone needs exactly one of passwordFile, applicationCredentialSecretFile (or cloudConfigFile)`,
    );
  }
  const settings = keystoneSettings(
    {
      authURL: text.authURL,
      user: userRef(text, `${at}.keystone`),
      password: has('passwordFile'),
      credentialID: text.applicationCredentialID,
      credentialName: text.applicationCredentialName,
      project: projectRef(text, `${at}.keystone`),
      domain: domainRef(text.domainID, text.domainName, 'domainID', 'domainName', `${at}.keystone`),
      region: text.region,
      interface: text.interface,
      caFile: text.caFile !== undefined ? resolve(base, text.caFile) : undefined,
    },
    `${at}.keystone`,
    NAMES,
  );
  checkAuthURL(settings.authURL, insecure, `${at}.keystone`);
  return { source: 'fields', settings, secretFile: resolve(base, text[secrets[0] as string] as string) };
}

const NAMES: FieldNames = {
  authURL: 'authURL',
  user: 'userID or userName',
  credentialID: 'applicationCredentialID',
  credentialName: 'applicationCredentialName',
  project: 'projectID or projectName',
  domain: 'domainID or domainName',
  region: 'region',
  interface: 'interface',
};

function userRef(text: Record<string, string>, at: string): UserRef | undefined {
  const domain = domainRef(text.userDomainID, text.userDomainName, 'userDomainID', 'userDomainName', at);
  return named(text.userID, text.userName, domain, ['userID', 'userName', 'userDomainID or userDomainName'], at);
}

function projectRef(text: Record<string, string>, at: string): ProjectRef | undefined {
  const domain = domainRef(text.projectDomainID, text.projectDomainName, 'projectDomainID', 'projectDomainName', at);
  return named(
    text.projectID,
    text.projectName,
    domain,
    ['projectID', 'projectName', 'projectDomainID or projectDomainName'],
    at,
  );
}

// A user or project: by ID alone, or by name within a domain (names are unique per domain only).
function named(
  id: string | undefined,
  name: string | undefined,
  domain: DomainRef | undefined,
  [idKey, nameKey, domainKeys]: [string, string, string],
  at: string,
): { id: string } | { name: string; domain: DomainRef } | undefined {
  if (id !== undefined && name !== undefined)
    throw new CredentialFileError(`${at}: give ${idKey} or ${nameKey}, not both`);
  if (id !== undefined) {
    if (domain !== undefined) throw new CredentialFileError(`${at}: ${idKey} names it alone: no ${domainKeys}`);
    return { id };
  }
  if (name !== undefined) {
    if (domain === undefined) throw new CredentialFileError(`${at}: ${nameKey} needs ${domainKeys}`);
    return { name, domain };
  }
  if (domain !== undefined) throw new CredentialFileError(`${at}: ${domainKeys} is given without ${nameKey}`);
  return undefined;
}

function domainRef(
  id: string | undefined,
  name: string | undefined,
  idKey: string,
  nameKey: string,
  at: string,
): DomainRef | undefined {
  if (id !== undefined && name !== undefined)
    throw new CredentialFileError(`${at}: give ${idKey} or ${nameKey}, not both`);
  return id !== undefined ? { id } : name !== undefined ? { name } : undefined;
}

/** The password goes to Keystone over https only, unless the entry is insecure and Keystone is on this machine. */
export function checkAuthURL(authURL: string, insecure: boolean, at: string): void {
  const url = new URL(authURL);
  if (insecure && !isLoopback(url.hostname)) {
    throw new CredentialFileError(
      `${at}: insecure, but the authURL's host '${url.host}' is not a loopback address (127.0.0.0/8, [::1] or localhost)`,
    );
  }
  if (url.protocol === 'http:' && !insecure) {
    throw new CredentialFileError(
      `${at}.authURL must be https (plain http only with "insecure": true, for a loopback test host)`,
    );
  }
}

/** Reads the entry's files (at start and on every reload of the credentials file). */
export async function readKeystoneLogin(
  entry: KeystoneEntry,
  at: string,
  insecure: boolean,
  hosts: readonly HostPort[],
): Promise<KeystoneLogin> {
  const read = async (file: string, cap = KEY_FILE_CAP): Promise<string> => {
    try {
      return (await readRegularFile(file, cap)).toString('utf8');
    } catch (err) {
      throw unreadable(at, file, err);
    }
  };
  if (entry.source === 'cloudConf') {
    const text = await read(entry.file, CONFIG_FILE_CAP);
    const conf = keystoneFromCloudConf(text, entry.file, at);
    const ca = conf.settings.caFile !== undefined ? await read(conf.settings.caFile, CONFIG_FILE_CAP) : undefined;
    return loginOf(conf.settings, conf.secret, ca, { insecure: insecure || conf.tlsInsecure, hosts, at }, text);
  }
  const secret = secretValue(await read(entry.secretFile), entry.secretFile, at);
  const ca = entry.settings.caFile !== undefined ? await read(entry.settings.caFile, CONFIG_FILE_CAP) : undefined;
  return loginOf(entry.settings, secret, ca, { insecure, hosts, at });
}

/** The same, synchronously: for checking flags and the plugin configuration before anything starts. */
export function readKeystoneLoginSync(
  entry: KeystoneEntry,
  at: string,
  insecure: boolean,
  hosts: readonly HostPort[],
): KeystoneLogin {
  const read = (file: string, cap = KEY_FILE_CAP): string => {
    try {
      return readRegularFileSync(file, cap).toString('utf8');
    } catch (err) {
      throw unreadable(at, file, err);
    }
  };
  if (entry.source === 'cloudConf') {
    const text = read(entry.file, CONFIG_FILE_CAP);
    const conf = keystoneFromCloudConf(text, entry.file, at);
    const ca = conf.settings.caFile !== undefined ? read(conf.settings.caFile, CONFIG_FILE_CAP) : undefined;
    return loginOf(conf.settings, conf.secret, ca, { insecure: insecure || conf.tlsInsecure, hosts, at }, text);
  }
  const secret = secretValue(read(entry.secretFile), entry.secretFile, at);
  const ca = entry.settings.caFile !== undefined ? read(entry.settings.caFile, CONFIG_FILE_CAP) : undefined;
  return loginOf(entry.settings, secret, ca, { insecure, hosts, at });
}

// The checks an entry's fields had at parse time, for a cloud.conf's settings too: its tls-insecure makes the entry
// insecure, which only loopback hosts may be.
function loginOf(
  settings: KeystoneSettings,
  secret: string,
  ca: string | undefined,
  { insecure, hosts, at }: { insecure: boolean; hosts: readonly HostPort[]; at: string },
  cloudConf?: string,
): KeystoneLogin {
  checkAuthURL(settings.authURL, insecure, `${at}.keystone`);
  const remote = insecure ? hosts.find((h) => !isLoopback(h.hostname)) : undefined;
  if (remote !== undefined) {
    throw new CredentialFileError(
      `${at}: insecure (tls-insecure), but host '${remote.hostname}' is not a loopback address (127.0.0.0/8, [::1] or localhost)`,
    );
  }
  if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----')) {
    throw new CredentialFileError(`${at}.keystone: ${settings.caFile} holds no PEM certificate`);
  }
  return {
    settings,
    secret,
    ...(ca !== undefined ? { ca } : {}),
    insecure,
    ...(cloudConf !== undefined ? { cloudConf } : {}),
  };
}

// Files written by `echo` or an editor end with a newline: one at the end is not part of the value.
function secretValue(text: string, file: string, at: string): string {
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new CredentialFileError(`${at}.keystone: ${file} is empty`);
  if (/[\r\n]/.test(value)) throw new CredentialFileError(`${at}.keystone: ${file} holds more than one line`);
  return value;
}

function unreadable(at: string, file: string, err: unknown): CredentialFileError {
  if (err instanceof CredentialFileError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? errorMessage(err);
  return new CredentialFileError(`${at}.keystone: cannot read ${file}: ${code}`);
}
