// The fields of an awsSigV4 entry that say where temporary credentials come from (aws-credential-sources.ts), checked
// at start as AWS takes them. Every field is optional: the SDKs' environment variables fill in what the entry leaves
// out, so a pod set up for IRSA or Pod Identity needs no more than `{"region": "..."}`.
import { resolve } from 'node:path';
import { isLoopback } from './allow-list.ts';
import { CredentialFileError } from './credential-file-error.ts';

/** chain: the SDKs' default order; static: the entry's key files; the others: that source alone. */
export const AWS_SOURCES = ['chain', 'static', 'environment', 'webIdentity', 'container', 'instanceProfile'] as const;
export type AwsSource = (typeof AWS_SOURCES)[number];

export const STS_VERSION = '2011-06-15';
export const DEFAULT_IMDS_ENDPOINT = 'http://169.254.169.254';

export interface AwsCredentialSettings {
  source: Exclude<AwsSource, 'static'>;
  region: string;
  roleARN?: string;
  /** Absolute path. */
  webIdentityTokenFile?: string;
  roleSessionName?: string;
  stsEndpoint?: string;
  instanceMetadataEndpoint?: string;
}

export const SETTINGS_FIELDS = [
  'source',
  'roleARN',
  'webIdentityTokenFile',
  'roleSessionName',
  'stsEndpoint',
  'instanceMetadataEndpoint',
] as const;

const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
// The metadata service's own addresses (IPv4 and IPv6), reached over plain http; and loopback, for an emulator.
const IMDS_HOSTS = new Set(['169.254.169.254', '[fd00:ec2::254]']);

/** The source an entry names (default: static with key files, else the chain). */
export function parseSource(value: unknown, hasKeyFiles: boolean, at: string): AwsSource {
  if (value === undefined) return hasKeyFiles ? 'static' : 'chain';
  if (typeof value !== 'string' || !(AWS_SOURCES as readonly string[]).includes(value)) {
    throw new CredentialFileError(`${at}.awsSigV4.source must be one of ${AWS_SOURCES.join(', ')}`);
  }
  return value as AwsSource;
}

/** The settings of a non-static entry; `base` is the credentials file's directory. */
export function parseCredentialSettings(
  fields: Record<string, unknown>,
  source: Exclude<AwsSource, 'static'>,
  region: string,
  { at, base, insecure }: { at: string; base: string; insecure: boolean },
): AwsCredentialSettings {
  const text = (key: string, pattern: RegExp, want: string): string | undefined => {
    const v = fields[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !pattern.test(v))
      throw new CredentialFileError(`${at}.awsSigV4.${key} must be ${want}`);
    return v;
  };
  const roleARN = text('roleARN', ROLE_ARN, 'a role ARN (arn:aws:iam::<account>:role/<name>)');
  const tokenFile = text('webIdentityTokenFile', /^[^\r\n]+$/, 'a file name');
  const roleSessionName = text('roleSessionName', SESSION_NAME, '2-64 letters, digits or +=,.@_-');
  const stsEndpoint = text('stsEndpoint', /^https?:\/\/[^\s/]+\/?$/, 'an http(s) URL without a path');
  const imds = text('instanceMetadataEndpoint', /^https?:\/\/[^\s/]+\/?$/, 'an http(s) URL without a path');
  if (stsEndpoint !== undefined) checkStsEndpoint(endpointURL(stsEndpoint, `${at}.awsSigV4.stsEndpoint`), insecure, at);
  if (imds !== undefined) {
    const where = `${at}.awsSigV4.instanceMetadataEndpoint`;
    checkMetadataEndpoint(endpointURL(imds, where), where);
  }
  const webIdentityOnly = [roleARN, tokenFile, roleSessionName, stsEndpoint].some((v) => v !== undefined);
  if (webIdentityOnly && source !== 'chain' && source !== 'webIdentity') {
    throw new CredentialFileError(
      `${at}.awsSigV4: roleARN, webIdentityTokenFile, roleSessionName and stsEndpoint are for source webIdentity (or chain), not ${source}`,
    );
  }
  if (imds !== undefined && source !== 'chain' && source !== 'instanceProfile') {
    throw new CredentialFileError(
      `${at}.awsSigV4: instanceMetadataEndpoint is for source instanceProfile (or chain), not ${source}`,
    );
  }
  return {
    source,
    region,
    ...(roleARN !== undefined ? { roleARN } : {}),
    ...(tokenFile !== undefined ? { webIdentityTokenFile: resolve(base, tokenFile) } : {}),
    ...(roleSessionName !== undefined ? { roleSessionName } : {}),
    ...(stsEndpoint !== undefined ? { stsEndpoint: new URL(stsEndpoint).origin } : {}),
    ...(imds !== undefined ? { instanceMetadataEndpoint: new URL(imds).origin } : {}),
  };
}

// The pattern lets through hosts the URL parser refuses (http://127.999.0.1): a clear error, not a TypeError.
function endpointURL(text: string, where: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new CredentialFileError(`${where}: ${JSON.stringify(text)} is not a URL`);
  }
}

// The web identity token goes to STS in the body: over https, or plain http to an emulator on this machine.
function checkStsEndpoint(url: URL, insecure: boolean, at: string): void {
  if (url.protocol === 'https:') return;
  if (insecure && isLoopback(url.hostname)) return;
  throw new CredentialFileError(
    `${at}.awsSigV4.stsEndpoint must be https (plain http only with "insecure": true, to a loopback host)`,
  );
}

/** The metadata service speaks plain http on its link-local address; an https or loopback endpoint is accepted too. */
export function checkMetadataEndpoint(url: URL, at: string): void {
  if (url.protocol === 'https:') return;
  if (IMDS_HOSTS.has(url.hostname) || isLoopback(url.hostname)) return;
  throw new CredentialFileError(
    `${at}: plain http only to the instance metadata service (169.254.169.254, [fd00:ec2::254]) or a loopback host, not ${url.host}`,
  );
}
