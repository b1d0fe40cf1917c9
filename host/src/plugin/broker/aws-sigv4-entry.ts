// The `awsSigV4` kind of credentials entry: AWS credentials the host signs requests with (SigV4), never handed to a
// plugin. Either an access key in files of a mounted Secret (one value per file, as `kubectl create secret generic
// --from-file` makes them), read at start and re-read with the credentials file:
//
//   {"name": "aws", "hosts": ["ec2.us-east-1.amazonaws.com", "elasticloadbalancing.us-east-1.amazonaws.com"],
//    "awsSigV4": {"accessKeyIdFile": "aws/access-key-id", "secretAccessKeyFile": "aws/secret-access-key",
//                 "sessionTokenFile": "aws/session-token", "region": "us-east-1"}}
//
// or, without key files, temporary credentials from the sources of the AWS SDKs' chain (IRSA, Pod Identity, the
// instance profile: aws-credential-sources.ts), which the host keeps and renews (aws-credential-flow.ts):
//
//   {"name": "aws", "hosts": [...], "awsSigV4": {"region": "us-east-1", "source": "webIdentity"}}
//
// Relative file names are relative to the credentials file's directory. `service` (the signing name: ec2,
// elasticloadbalancing, ...) is optional for `<service>.<region>.amazonaws.com` hosts, where it comes from the
// host, and required for any other host (a custom endpoint such as moto on 127.0.0.1). Messages never include key
// material.
import { dirname, resolve } from 'node:path';
import type { AwsAccessKey } from './sigv4-signer.ts';
import type { HostPort } from './allow-list.ts';
import { errorMessage } from '../../util/error-message.ts';
import { KEY_FILE_CAP, readRegularFile, readRegularFileSync } from '../../util/read-regular-file.ts';
import { CredentialFileError } from './credential-file-error.ts';
import {
  type AwsCredentialSettings,
  parseCredentialSettings,
  parseSource,
  SETTINGS_FIELDS,
} from './aws-credential-settings.ts';

interface AwsSigV4Scope {
  region: string;
  /** The signing name for every host of the entry; undefined: taken from each host. */
  service?: string;
}

/** An access key in files (absolute paths). */
export interface StaticAwsSigV4Entry extends AwsSigV4Scope {
  accessKeyIdFile: string;
  secretAccessKeyFile: string;
  sessionTokenFile?: string;
}

/** Temporary credentials the host gets from a source of the chain. */
export interface SourcedAwsSigV4Entry extends AwsSigV4Scope {
  credentials: AwsCredentialSettings;
}

export type AwsSigV4Entry = StaticAwsSigV4Entry | SourcedAwsSigV4Entry;

export function isStaticEntry(entry: AwsSigV4Entry): entry is StaticAwsSigV4Entry {
  return !('credentials' in entry);
}

const KEY_FILE_FIELDS = ['accessKeyIdFile', 'secretAccessKeyFile', 'sessionTokenFile'];
const FIELDS = new Set([...KEY_FILE_FIELDS, 'region', 'service', ...SETTINGS_FIELDS]);
// Region and service names are lower-case words joined by hyphens (us-east-1, elasticloadbalancing, ec2-fips...).
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const AMAZON_HOST = /^([a-z0-9-]+)\.(?:([a-z0-9-]+)\.)?amazonaws\.com(?:\.cn)?$/;

/** Parses the `awsSigV4` object of the entry at `at` (whose hosts are `hosts`) in the credentials file `where`. */
export function parseAwsSigV4Entry(
  value: unknown,
  hosts: HostPort[],
  { at, where, insecure }: { at: string; where: string; insecure: boolean },
): AwsSigV4Entry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CredentialFileError(`${at}.awsSigV4 must be an object`);
  }
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!FIELDS.has(key)) {
      throw new CredentialFileError(`${at}.awsSigV4: unknown field '${key}' (known: ${[...FIELDS].join(', ')})`);
    }
  }
  const base = dirname(where);
  const path = (key: string, required: boolean): string | undefined => {
    const v = fields[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || v === '') throw new CredentialFileError(`${at}.awsSigV4.${key} must be a file name`);
    return resolve(base, v);
  };
  const name = (key: string, required: boolean): string | undefined => {
    const v = fields[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || !NAME.test(v)) {
      throw new CredentialFileError(
        `${at}.awsSigV4.${key} must be a name like ${key === 'region' ? 'us-east-1' : 'ec2'}`,
      );
    }
    return v;
  };
  const service = name('service', false);
  const scope: AwsSigV4Scope = {
    region: name('region', true) as string,
    ...(service !== undefined ? { service } : {}),
  };
  const hasKeyFiles = KEY_FILE_FIELDS.some((key) => fields[key] !== undefined);
  const source = parseSource(fields.source, hasKeyFiles, at);
  let entry: AwsSigV4Entry;
  if (source === 'static') {
    const sessionTokenFile = path('sessionTokenFile', false);
    entry = {
      accessKeyIdFile: path('accessKeyIdFile', true) as string,
      secretAccessKeyFile: path('secretAccessKeyFile', true) as string,
      ...(sessionTokenFile !== undefined ? { sessionTokenFile } : {}),
      ...scope,
    };
  } else {
    if (hasKeyFiles) {
      throw new CredentialFileError(`${at}.awsSigV4: key files are for source static (or no source), not ${source}`);
    }
    const credentials = parseCredentialSettings(fields, source, scope.region, { at, base, insecure });
    entry = { ...scope, credentials };
  }
  for (const host of hosts) checkHost(entry, host.hostname, at);
  return entry;
}

// Every host must give a signing name, and an AWS host's region must be the entry's: a request signed for another
// region is refused by AWS, better said at start.
function checkHost(entry: AwsSigV4Entry, hostname: string, at: string): void {
  const amazon = amazonHost(hostname);
  if (amazon === undefined) {
    if (entry.service === undefined) {
      throw new CredentialFileError(
        `${at}.awsSigV4.service is required: host '${hostname}' is not <service>.<region>.amazonaws.com`,
      );
    }
    return;
  }
  if (amazon.region !== undefined && amazon.region !== entry.region) {
    throw new CredentialFileError(
      `${at}: host '${hostname}' is in region ${amazon.region}, not awsSigV4.region ${entry.region}`,
    );
  }
}

/** `<service>[.<region>].amazonaws.com[.cn]`, split; undefined for any other host. */
export function amazonHost(hostname: string): { service: string; region?: string } | undefined {
  const match = AMAZON_HOST.exec(hostname.toLowerCase());
  if (match === null) return undefined;
  // FIPS endpoints (ec2-fips.us-east-1...) sign with the service's own name.
  const service = (match[1] as string).replace(/-fips$/, '');
  return match[2] !== undefined ? { service, region: match[2] } : { service };
}

/** The signing name for a request to `hostname` (parse-time checks guarantee one). */
export function signingService(entry: AwsSigV4Entry, hostname: string): string {
  const service = entry.service ?? amazonHost(hostname)?.service;
  if (service === undefined) throw new CredentialFileError(`no AWS signing service for host '${hostname}'`);
  return service;
}

/** Reads the key files (at start and on every reload of the credentials file). */
export async function readAwsAccessKey(entry: StaticAwsSigV4Entry, at: string): Promise<AwsAccessKey> {
  const read = async (file: string): Promise<string> => {
    try {
      return (await readRegularFile(file, KEY_FILE_CAP)).toString('utf8');
    } catch (err) {
      throw unreadable(at, file, err);
    }
  };
  const [id, secret, token] = await Promise.all([
    read(entry.accessKeyIdFile),
    read(entry.secretAccessKeyFile),
    entry.sessionTokenFile !== undefined ? read(entry.sessionTokenFile) : undefined,
  ]);
  return accessKey(entry, at, id, secret, token);
}

/** The same, synchronously: for checking flags and the plugin configuration before anything starts. */
export function readAwsAccessKeySync(entry: StaticAwsSigV4Entry, at: string): AwsAccessKey {
  const read = (file: string): string => {
    try {
      return readRegularFileSync(file, KEY_FILE_CAP).toString('utf8');
    } catch (err) {
      throw unreadable(at, file, err);
    }
  };
  const token = entry.sessionTokenFile !== undefined ? read(entry.sessionTokenFile) : undefined;
  return accessKey(entry, at, read(entry.accessKeyIdFile), read(entry.secretAccessKeyFile), token);
}

function unreadable(at: string, file: string, err: unknown): CredentialFileError {
  const code = (err as NodeJS.ErrnoException).code ?? errorMessage(err);
  return new CredentialFileError(`${at}.awsSigV4: cannot read ${file}: ${code}`);
}

// Files written by `echo` or an editor end with a newline: one at the end is not part of the value.
function accessKey(entry: StaticAwsSigV4Entry, at: string, id: string, secret: string, token?: string): AwsAccessKey {
  const value = (text: string, file: string, pattern: RegExp, what: string): string => {
    const v = text.replace(/\r?\n$/, '');
    if (v === '') throw new CredentialFileError(`${at}.awsSigV4: ${file} is empty`);
    if (!pattern.test(v)) throw new CredentialFileError(`${at}.awsSigV4: ${file} is not ${what}`);
    return v;
  };
  return {
    accessKeyId: value(id, entry.accessKeyIdFile, /^[A-Za-z0-9]{1,128}$/, 'an access key ID (letters and digits)'),
    secretAccessKey: value(secret, entry.secretAccessKeyFile, /^[!-~]{1,1024}$/, 'a secret access key (one line)'),
    ...(token !== undefined && entry.sessionTokenFile !== undefined
      ? { sessionToken: value(token, entry.sessionTokenFile, /^[!-~]{1,16384}$/, 'a session token (one line)') }
      : {}),
  };
}
