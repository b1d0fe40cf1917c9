// The format of the credentials file (mounted from a Kubernetes Secret) and its strict parser. Example:
//
//   {"credentials": [
//     {"name": "api", "hosts": ["api.example.com"], "bearerToken": "..."},
//     {"name": "metadata", "hosts": ["10.0.0.1:8080"], "basicAuth": {"username": "...", "password": "..."}},
//     {"name": "keys", "hosts": ["keys.example.com:8443"], "headers": {"X-Api-Key": "..."}},
//     {"name": "aws", "hosts": ["ec2.us-east-1.amazonaws.com"], "awsSigV4": {"accessKeyIdFile": "...", ...}},
//     {"name": "openstack", "hostsFromCatalog": true, "keystone": {"authURL": "...", "passwordFile": "...", ...}},
//     {"name": "vcenter", "vsphere": {"server": "vcenter.example:443", "username": "...", "passwordFile": "..."}},
//     {"name": "test", "hosts": ["127.0.0.1:8080"], "bearerToken": "...", "insecure": true}
//   ]}
//
// Each entry has exactly one of bearerToken, basicAuth, headers, awsSigV4 (aws-sigv4-entry.ts), keystone
// (keystone-entry.ts) or vsphere (vsphere-entry.ts; both logins, whose sessions the host attaches), optionally
// `insecure`, and no other field; `hosts`, unless a login entry takes its hosts from the service catalog it gets
// (`hostsFromCatalog`), or is a vsphere entry, whose one host is its server. A credential goes over
// https only; `insecure: true` lets it go over plain http too, and is accepted only when every host of the entry is a
// loopback address (a test server on the same machine: its traffic never crosses a network). Messages never include
// secret values.
import { type HostPort, isLoopback, parseEntry } from './allow-list.ts';
import { errorMessage } from '../../util/error-message.ts';
import { type AwsSigV4Entry, isStaticEntry, parseAwsSigV4Entry, readAwsAccessKeySync } from './aws-sigv4-entry.ts';
import { CredentialFileError } from './credential-file-error.ts';
import { type KeystoneEntry, parseKeystoneEntry, readKeystoneLoginSync } from './keystone-entry.ts';
import { parseVsphereEntry, readVsphereLoginSync, type VsphereEntry, vsphereHost } from './vsphere-entry.ts';

export { CredentialFileError };

/** A secret sent as is, in headers. */
export type StaticSecret =
  | { kind: 'bearer'; token: string }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'headers'; headers: Record<string, string> };

/** AWS credentials (an access key in files, or a source of the chain) with which the host signs each request (SigV4). */
export interface AwsSigV4Secret {
  kind: 'awsSigV4';
  entry: AwsSigV4Entry;
}

/** A login the host makes with the entry's secret, for a session it attaches (login-flow.ts). */
export interface LoginSecret {
  kind: 'login';
  login: { flow: 'keystone'; entry: KeystoneEntry } | { flow: 'vsphere'; entry: VsphereEntry };
}

export type CredentialSecret = StaticSecret | AwsSigV4Secret | LoginSecret;

export interface Credential {
  name: string;
  hosts: HostPort[];
  secret: CredentialSecret;
  /** Also sent over plain http (every host is a loopback address). */
  insecure: boolean;
  /** A login entry's hosts include its catalog's endpoints (known after the first login). */
  hostsFromCatalog: boolean;
}

const KINDS = ['bearerToken', 'basicAuth', 'headers', 'awsSigV4', 'keystone', 'vsphere'];
const ENTRY_FIELDS = new Set(['name', 'hosts', 'hostsFromCatalog', 'insecure', ...KINDS]);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function parseCredentialFile(text: string, where: string): Credential[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new CredentialFileError(`${where}: not JSON (${jsonErrorWithoutText(errorMessage(err))})`);
  }
  const list = isObject(doc) ? doc.credentials : undefined;
  if (!Array.isArray(list)) throw new CredentialFileError(`${where}: expected {"credentials": [...]}`);
  const names = new Set<string>();
  return list.map((entry: unknown, i: number) => {
    const at = `${where}: credentials[${i}]`;
    if (!isObject(entry)) throw new CredentialFileError(`${at} is not an object`);
    const name = entry.name;
    if (typeof name !== 'string' || name === '') throw new CredentialFileError(`${at}.name must be a non-empty string`);
    if (names.has(name)) throw new CredentialFileError(`${at}: duplicate name '${name}'`);
    names.add(name);
    const unknown = Object.keys(entry).find((key) => !ENTRY_FIELDS.has(key));
    if (unknown !== undefined) throw new CredentialFileError(`${at} (${name}): unknown field '${unknown}'`);
    const hostsFromCatalog = parseHostsFromCatalog(entry, `${at} (${name})`);
    const hosts =
      entry.vsphere !== undefined
        ? vsphereHosts(entry, `${at} (${name})`)
        : (entry.hosts ?? (hostsFromCatalog ? [] : undefined));
    if (
      !Array.isArray(hosts) ||
      (hosts.length === 0 && !hostsFromCatalog) ||
      !hosts.every((h) => typeof h === 'string')
    ) {
      throw new CredentialFileError(`${at} (${name}).hosts must be a non-empty list of host[:port]`);
    }
    const parsedHosts = hosts.map((h: string) => parseHost(h, `${at} (${name})`));
    const insecure = parseInsecure(entry.insecure, parsedHosts, `${at} (${name})`);
    return {
      name,
      hosts: parsedHosts,
      secret: parseSecret(entry, parsedHosts, `${at} (${name})`, where, insecure),
      insecure,
      hostsFromCatalog,
    };
  });
}

// A vsphere entry's sessions are its server's: its one host.
function vsphereHosts(entry: Record<string, unknown>, at: string): string[] {
  if (entry.hosts !== undefined) throw new CredentialFileError(`${at}: a vsphere entry's host is its server: no hosts`);
  const host = vsphereHost(entry.vsphere, at);
  return [`${host.hostname}:${host.port}`];
}

function parseHostsFromCatalog(entry: Record<string, unknown>, at: string): boolean {
  const value = entry.hostsFromCatalog;
  if (value === undefined || value === false) return false;
  if (value !== true) throw new CredentialFileError(`${at}.hostsFromCatalog must be true or false`);
  if (entry.keystone === undefined) {
    throw new CredentialFileError(
      `${at}.hostsFromCatalog is for a login entry (keystone), whose login gives a catalog`,
    );
  }
  return true;
}

// V8 quotes the text around a bad token (`Unexpected token 'S', ..."n":\nSECRET"... is not valid JSON`), which may be a
// secret: such a message is replaced by one without the text. The others name a position only.
function jsonErrorWithoutText(message: string): string {
  if (!/^Unexpected token|is not valid JSON/.test(message)) return message;
  return 'an unexpected token; the text is not quoted, as it may hold a secret';
}

/**
 * Parses the file and reads every file its entries name (AWS keys, Keystone and vSphere secrets, cloud.conf), as the credential store will: for checking a
 * flag or the plugin configuration before anything starts, so that a missing key file is an invalid flag.
 */
export function checkCredentialFile(text: string, where: string): void {
  parseCredentialFile(text, where).forEach((credential, i) => {
    const at = `${where}: credentials[${i}] (${credential.name})`;
    const secret = credential.secret;
    if (secret.kind === 'awsSigV4' && isStaticEntry(secret.entry)) readAwsAccessKeySync(secret.entry, at);
    if (credential.secret.kind !== 'login') return;
    const login = credential.secret.login;
    if (login.flow === 'keystone') readKeystoneLoginSync(login.entry, at, credential.insecure, credential.hosts);
    else readVsphereLoginSync(login.entry, at);
  });
}

function parseHost(entry: string, at: string): HostPort {
  try {
    return parseEntry(entry);
  } catch (err) {
    throw new CredentialFileError(`${at}.hosts: ${errorMessage(err)}`);
  }
}

function parseInsecure(value: unknown, hosts: HostPort[], at: string): boolean {
  if (value === undefined || value === false) return false;
  if (value !== true) throw new CredentialFileError(`${at}.insecure must be true or false`);
  for (const host of hosts) {
    if (!isLoopback(host.hostname)) {
      const spelled = host.port === undefined ? host.hostname : `${host.hostname}:${host.port}`;
      throw new CredentialFileError(
        `${at}.insecure: '${spelled}' is not a loopback address (127.0.0.0/8, [::1] or localhost); a credential for any other host goes over https only`,
      );
    }
  }
  return true;
}

function parseSecret(
  entry: Record<string, unknown>,
  hosts: HostPort[],
  at: string,
  where: string,
  insecure: boolean,
): CredentialSecret {
  const kinds = KINDS.filter((k) => entry[k] !== undefined);
  if (kinds.length !== 1) throw new CredentialFileError(`${at} needs exactly one of ${KINDS.join(', ')}`);
  if (entry.keystone !== undefined) {
    return {
      kind: 'login',
      login: { flow: 'keystone', entry: parseKeystoneEntry(entry.keystone, at, where, insecure) },
    };
  }
  if (entry.vsphere !== undefined) {
    return { kind: 'login', login: { flow: 'vsphere', entry: parseVsphereEntry(entry.vsphere, at, where) } };
  }
  if (entry.awsSigV4 !== undefined) {
    return { kind: 'awsSigV4', entry: parseAwsSigV4Entry(entry.awsSigV4, hosts, { at, where, insecure }) };
  }
  if (entry.bearerToken !== undefined) {
    if (typeof entry.bearerToken !== 'string' || entry.bearerToken === '' || /[\r\n]/.test(entry.bearerToken)) {
      throw new CredentialFileError(`${at}.bearerToken must be a non-empty single-line string`);
    }
    return { kind: 'bearer', token: entry.bearerToken };
  }
  if (entry.basicAuth !== undefined) {
    const basic = entry.basicAuth;
    if (!isObject(basic) || typeof basic.username !== 'string' || typeof basic.password !== 'string') {
      throw new CredentialFileError(`${at}.basicAuth must be {"username": string, "password": string}`);
    }
    if (basic.username.includes(':')) throw new CredentialFileError(`${at}.basicAuth.username must not contain ':'`);
    return { kind: 'basic', username: basic.username, password: basic.password };
  }
  const headers = entry.headers;
  if (!isObject(headers) || Object.keys(headers).length === 0) {
    throw new CredentialFileError(`${at}.headers must be a non-empty map of header name to value`);
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(key)) throw new CredentialFileError(`${at}.headers: '${key}' is not a valid header name`);
    if (typeof value !== 'string' || /[\r\n]/.test(value)) {
      throw new CredentialFileError(`${at}.headers['${key}'] must be a single-line string`);
    }
    out[key] = value;
  }
  return { kind: 'headers', headers: out };
}

/** The request headers a static credential adds. */
export function credentialHeaders(secret: StaticSecret): Record<string, string> {
  switch (secret.kind) {
    case 'bearer':
      return { authorization: `Bearer ${secret.token}` };
    case 'basic':
      return {
        authorization: `Basic ${Buffer.from(`${secret.username}:${secret.password}`, 'utf8').toString('base64')}`,
      };
    case 'headers':
      return Object.fromEntries(Object.entries(secret.headers).map(([k, v]) => [k.toLowerCase(), v]));
  }
}

/** The secret values a static credential puts on the wire, as they would appear in an echo of the request. */
export function secretValues(secret: StaticSecret): string[] {
  switch (secret.kind) {
    case 'bearer':
      return [secret.token];
    case 'basic':
      return [secret.password, Buffer.from(`${secret.username}:${secret.password}`, 'utf8').toString('base64')];
    case 'headers':
      return Object.values(secret.headers);
  }
}

/** The value an explicitly exposed credential has in the plugin's Extism config (an AWS key is never exposed). */
export function exposedValue(secret: StaticSecret): string {
  switch (secret.kind) {
    case 'bearer':
      return secret.token;
    case 'basic':
      return `${secret.username}:${secret.password}`;
    case 'headers':
      return JSON.stringify(secret.headers);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
