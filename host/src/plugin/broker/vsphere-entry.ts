// The `vsphere` kind of credentials entry: a vCenter account the host logs in with (vsphere-flow.ts) for the sessions
// it attaches to the plugin's requests to that vCenter; the plugin never sees the password or a session:
//
//   {"name": "vcenter",
//    "vsphere": {"server": "vcenter.example:443", "username": "ccm@vsphere.local",
//                "passwordFile": "vsphere/password", "caFile": "vsphere/ca.pem"}}
//
// The entry's one host is its server (no `hosts`); `insecure` is the entry's, as for the other kinds, and changes
// nothing for the logins, which go over https always. Relative file names are relative to the credentials file's
// directory. Messages never include a secret.
import { dirname, resolve } from 'node:path';
import { errorMessage } from '../../util/error-message.ts';
import { CONFIG_FILE_CAP, KEY_FILE_CAP, readRegularFile, readRegularFileSync } from '../../util/read-regular-file.ts';
import { type HostPort, parseEntry } from './allow-list.ts';
import { CredentialFileError } from './credential-file-error.ts';

export interface VsphereEntry {
  /** `host:port` (443 when the entry gives none). */
  server: string;
  username: string;
  passwordFile: string;
  caFile?: string;
}

/** An entry with its files read: what a login uses. */
export interface VsphereLogin {
  server: string;
  username: string;
  password: string;
  /** The CA's PEM text, when the entry names one. */
  ca?: string;
}

const FIELDS = ['server', 'username', 'passwordFile', 'caFile'];
const HTTPS_PORT = 443;

/** The entry's host (its server), for the credential's hosts; throws naming the field when it is not host[:port]. */
export function vsphereHost(value: unknown, at: string): HostPort {
  const server = stringFields(value, at).server;
  if (server === undefined) throw new CredentialFileError(`${at}.vsphere.server is required (host or host:port)`);
  try {
    const host = parseEntry(server);
    return { hostname: host.hostname, port: host.port ?? HTTPS_PORT };
  } catch (err) {
    throw new CredentialFileError(`${at}.vsphere.server: ${errorMessage(err)}`);
  }
}

/** Parses the `vsphere` object of the entry at `at` in the credentials file `where`. */
export function parseVsphereEntry(value: unknown, at: string, where: string): VsphereEntry {
  const fields = stringFields(value, at);
  const host = vsphereHost(value, at);
  for (const key of ['username', 'passwordFile']) {
    if (fields[key] === undefined) throw new CredentialFileError(`${at}.vsphere.${key} is required`);
  }
  const base = dirname(where);
  return {
    server: `${host.hostname}:${host.port}`,
    username: fields.username as string,
    passwordFile: resolve(base, fields.passwordFile as string),
    ...(fields.caFile !== undefined ? { caFile: resolve(base, fields.caFile) } : {}),
  };
}

function stringFields(value: unknown, at: string): Record<string, string | undefined> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CredentialFileError(`${at}.vsphere must be an object`);
  }
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined) {
    throw new CredentialFileError(`${at}.vsphere: unknown field '${unknown}' (known: ${FIELDS.join(', ')})`);
  }
  for (const [key, v] of Object.entries(fields)) {
    if (typeof v !== 'string' || v === '' || /[\r\n]/.test(v)) {
      throw new CredentialFileError(`${at}.vsphere.${key} must be a non-empty single-line string`);
    }
  }
  return fields as Record<string, string>;
}

/** Reads the entry's files (at start and on every reload of the credentials file). */
export async function readVsphereLogin(entry: VsphereEntry, at: string): Promise<VsphereLogin> {
  const read = async (file: string, cap = KEY_FILE_CAP): Promise<string> => {
    try {
      return (await readRegularFile(file, cap)).toString('utf8');
    } catch (err) {
      throw unreadable(at, file, err);
    }
  };
  const password = await read(entry.passwordFile);
  const ca = entry.caFile !== undefined ? await read(entry.caFile, CONFIG_FILE_CAP) : undefined;
  return loginOf(entry, password, ca, at);
}

/** The same, synchronously: for checking flags and the plugin configuration before anything starts. */
export function readVsphereLoginSync(entry: VsphereEntry, at: string): VsphereLogin {
  const read = (file: string, cap = KEY_FILE_CAP): string => {
    try {
      return readRegularFileSync(file, cap).toString('utf8');
    } catch (err) {
      throw unreadable(at, file, err);
    }
  };
  const ca = entry.caFile !== undefined ? read(entry.caFile, CONFIG_FILE_CAP) : undefined;
  return loginOf(entry, read(entry.passwordFile), ca, at);
}

// Files written by `echo` or an editor end with a newline: one at the end is not part of the password.
function loginOf(entry: VsphereEntry, text: string, ca: string | undefined, at: string): VsphereLogin {
  const password = text.replace(/\r?\n$/, '');
  if (password === '') throw new CredentialFileError(`${at}.vsphere: ${entry.passwordFile} is empty`);
  if (/[\r\n]/.test(password)) {
    throw new CredentialFileError(`${at}.vsphere: ${entry.passwordFile} holds more than one line`);
  }
  if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----')) {
    throw new CredentialFileError(`${at}.vsphere: ${entry.caFile} holds no PEM certificate`);
  }
  return { server: entry.server, username: entry.username, password, ...(ca !== undefined ? { ca } : {}) };
}

function unreadable(at: string, file: string, err: unknown): CredentialFileError {
  if (err instanceof CredentialFileError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? errorMessage(err);
  return new CredentialFileError(`${at}.vsphere: cannot read ${file}: ${code}`);
}
