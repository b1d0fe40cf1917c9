// OCCM's cloud.conf (openstack-cloud-controller-manager's --cloud-config, an INI file), as a source of a keystone
// credentials entry: its [Global] section's auth keys give the login, read as gophercloud reads them (a project
// scope when a project is named, else a domain scope; `domain-id`/`domain-name` stand for the user's and the project's
// domain where those are not given, except for a domain scope; an application credential wins over a password, and
// logs in without a scope).
// Any other [Global] key is refused by name: a trust, a client certificate or clouds.yaml would log in differently,
// and a key this reader does not know must not be dropped in silence. The other sections are the plugin's.
//
// The same file is often the plugin's own --cloud-config: withoutSecretKeys() takes [Global]'s secrets out of the
// text the plugin is given.
import { decode } from 'ini';
import { dirname, resolve } from 'node:path';
import { CredentialFileError } from './credential-file-error.ts';
import {
  type DomainRef,
  type FieldNames,
  INTERFACES,
  keystoneSettings,
  type KeystoneSettings,
  type ProjectRef,
  type UserRef,
} from './keystone-settings.ts';

export interface CloudConfLogin {
  settings: KeystoneSettings;
  secret: string;
  /** tls-insecure = true: plain http allowed, to loopback hosts only (certificates are always verified). */
  tlsInsecure: boolean;
}

/** The [Global] keys this reader takes; each alias stands for the key it names. */
const ALIASES: Record<string, string> = {
  'project-id': 'tenant-id',
  'project-name': 'tenant-name',
  'project-domain-id': 'tenant-domain-id',
  'project-domain-name': 'tenant-domain-name',
};
const KEYS = new Set([
  'auth-url',
  'user-id',
  'username',
  'password',
  'user-domain-id',
  'user-domain-name',
  'domain-id',
  'domain-name',
  'tenant-id',
  'tenant-name',
  'tenant-domain-id',
  'tenant-domain-name',
  'region',
  'os-endpoint-type',
  'application-credential-id',
  'application-credential-name',
  'application-credential-secret',
  'tls-insecure',
  'ca-file',
  ...Object.keys(ALIASES),
]);
/** The [Global] keys that hold a secret: never in the text a plugin is given (withoutSecretKeys). */
const SECRET_KEYS = new Set(['password', 'application-credential-secret', 'trustee-password']);

const NAMES: FieldNames = {
  authURL: 'auth-url',
  user: 'user-id or username',
  credentialID: 'application-credential-id',
  credentialName: 'application-credential-name',
  project: 'tenant-id or tenant-name',
  domain: 'domain-id or domain-name',
  region: 'region',
  interface: 'os-endpoint-type',
};

/** The [Global] section's keys (lower-case, aliases resolved) and values; every key checked. */
function globalSection(text: string, where: string): Map<string, string> {
  const sections = sectionsOf(text);
  const out = new Map<string, string>();
  for (const [name, section] of Object.entries(sections)) {
    if (name.toLowerCase() !== 'global' || typeof section !== 'object' || section === null) continue;
    for (const [rawKey, value] of Object.entries(section as Record<string, unknown>)) {
      const lower = rawKey.toLowerCase();
      if (!KEYS.has(lower)) {
        throw new CredentialFileError(`${where}: [Global] key '${rawKey}' is not supported for a brokered login`);
      }
      const key = ALIASES[lower] ?? lower;
      if (Array.isArray(value)) throw new CredentialFileError(`${where}: [Global] ${rawKey} is given more than once`);
      // `ini` reads true, false and null as JSON: a password may be spelled so.
      const text = typeof value === 'string' ? value : String(value);
      if (out.has(key) && out.get(key) !== text) {
        throw new CredentialFileError(`${where}: [Global] ${rawKey} and the key it stands for disagree`);
      }
      if (text !== '') out.set(key, text);
    }
  }
  if (out.size === 0) throw new CredentialFileError(`${where}: no [Global] section with auth keys`);
  return out;
}

/** The login cloud.conf's [Global] section gives; `file` is its path, `at` the entry, for messages. */
export function keystoneFromCloudConf(text: string, file: string, at: string): CloudConfLogin {
  const where = `${at}.keystone: ${file}`;
  const keys = globalSection(text, where);
  const get = (key: string): string | undefined => keys.get(key);
  const applicationCredential = ['application-credential-id', 'application-credential-name'].some((k) => keys.has(k));
  const projectScoped = keys.has('tenant-id') || keys.has('tenant-name');
  // As gophercloud's clientconfig: domain-* is the default domain of the user and the project, except for a domain
  // scope, where it is the scope.
  const domainDefaults = applicationCredential || projectScoped;
  const fallback = domainDefaults ? domain(get('domain-id'), get('domain-name')) : undefined;
  const userDomain = domain(get('user-domain-id'), get('user-domain-name')) ?? fallback;
  const projectDomain = domain(get('tenant-domain-id'), get('tenant-domain-name')) ?? fallback;
  const secretKey = applicationCredential ? 'application-credential-secret' : 'password';
  const secret = get(secretKey);
  if (secret === undefined) throw new CredentialFileError(`${where}: [Global] ${secretKey} is required`);
  const tlsInsecure = get('tls-insecure');
  if (tlsInsecure !== undefined && tlsInsecure !== 'true' && tlsInsecure !== 'false') {
    throw new CredentialFileError(`${where}: [Global] tls-insecure must be true or false`);
  }
  const endpointType = get('os-endpoint-type');
  const caFile = get('ca-file');
  const settings = keystoneSettings(
    {
      authURL: get('auth-url'),
      // gophercloud logs in with an application credential's ID alone: a user given beside it is not used.
      user: keys.has('application-credential-id')
        ? undefined
        : user(get('user-id'), get('username'), userDomain, where),
      password: !applicationCredential,
      credentialID: get('application-credential-id'),
      // gophercloud names a credential by ID when it has one.
      credentialName: keys.has('application-credential-id') ? undefined : get('application-credential-name'),
      // gophercloud sends no scope with an application credential (it carries its own): project keys are not used.
      project: applicationCredential ? undefined : project(get('tenant-id'), get('tenant-name'), projectDomain, where),
      domain: projectScoped || applicationCredential ? undefined : domain(get('domain-id'), get('domain-name')),
      region: get('region'),
      interface: endpointType === undefined ? undefined : endpointInterface(endpointType),
      caFile: caFile === undefined ? undefined : resolve(dirname(file), caFile),
    },
    `${where}: [Global]`,
    NAMES,
  );
  return { settings, secret, tlsInsecure: tlsInsecure === 'true' };
}

// gophercloud takes `publicURL` and the like as well as the interface's own name.
function endpointInterface(value: string): string {
  const bare = value.toLowerCase().replace(/url$/, '');
  return (INTERFACES as readonly string[]).includes(bare) ? bare : value;
}

function domain(id: string | undefined, name: string | undefined): DomainRef | undefined {
  return id !== undefined ? { id } : name !== undefined ? { name } : undefined;
}

function user(
  id: string | undefined,
  name: string | undefined,
  within: DomainRef | undefined,
  where: string,
): UserRef | undefined {
  if (id !== undefined) return { id };
  if (name === undefined) return undefined;
  if (within === undefined) {
    throw new CredentialFileError(
      `${where}: [Global] username needs user-domain-id or user-domain-name (or domain-id or domain-name)`,
    );
  }
  return { name, domain: within };
}

function project(
  id: string | undefined,
  name: string | undefined,
  within: DomainRef | undefined,
  where: string,
): ProjectRef | undefined {
  if (id !== undefined) return { id };
  if (name === undefined) return undefined;
  if (within === undefined) {
    throw new CredentialFileError(
      `${where}: [Global] tenant-name needs tenant-domain-id or tenant-domain-name (or domain-id or domain-name)`,
    );
  }
  return { name, domain: within };
}

/** `text` without the secret keys of its [Global] section (and their continuation lines); the rest as it was. */
export function withoutSecretKeys(text: string): string {
  const lines = text.split(/(?<=\n)/);
  const out: string[] = [];
  let inGlobal = false;
  let dropping = false;
  for (const line of lines) {
    const content = line.replace(/\r?\n$/, '');
    if (dropping) {
      dropping = content.endsWith('\\');
      continue;
    }
    const section = /^\s*\[\s*([^\]]*?)\s*\]/.exec(content);
    if (section !== null) inGlobal = (section[1] as string).toLowerCase() === 'global';
    const key = /^\s*([^=;#\s][^=]*?)\s*=/.exec(content)?.[1]?.toLowerCase();
    if (inGlobal && section === null && key !== undefined && SECRET_KEYS.has(key)) {
      dropping = content.endsWith('\\');
      continue;
    }
    out.push(line);
  }
  return out.join('');
}

/** The auth-url of a cloud.conf's [Global] section, normalized as an entry's; undefined for any other text. */
export function cloudConfAuthURL(text: string): string | undefined {
  try {
    const value = globalValue(text, 'auth-url');
    return value === undefined ? undefined : new URL(value).href.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

function globalValue(text: string, key: string): string | undefined {
  const sections = sectionsOf(text);
  for (const [name, section] of Object.entries(sections)) {
    if (name.toLowerCase() !== 'global' || typeof section !== 'object' || section === null) continue;
    for (const [k, v] of Object.entries(section as Record<string, unknown>)) {
      if (k.toLowerCase() === key && typeof v === 'string') return v;
    }
  }
  return undefined;
}

function sectionsOf(text: string): Record<string, unknown> {
  // gcfg, which OCCM reads the file with, allows indented lines; the `ini` package does not. A repeated key is an
  // array (bracketedArray: false), refused by the caller.
  return decode(
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .join('\n'),
    { bracketedArray: false },
  );
}
