// The settings of a Keystone v3 login, whichever way an entry gives them (the credentials file's fields,
// keystone-entry.ts, or OCCM's cloud.conf, cloud-conf.ts), checked as Keystone takes them: a user by ID or by name
// within a domain, a project likewise, a token scoped to a project or a domain, an application credential by ID or
// by name with its owner, and never a scope for an application credential (it carries its own).
import { CredentialFileError } from './credential-file-error.ts';

export type DomainRef = { id: string } | { name: string };
export type UserRef = { id: string } | { name: string; domain: DomainRef };
export type ProjectRef = { id: string } | { name: string; domain: DomainRef };
export type KeystoneInterface = 'public' | 'internal' | 'admin';

/** Everything a login needs but its secret. */
export interface KeystoneSettings {
  /** The identity v3 root, without a final slash: the login is `POST {authURL}/auth/tokens`. */
  authURL: string;
  auth:
    | { method: 'password'; user: UserRef }
    | { method: 'application_credential'; credential: { id: string } | { name: string; user: UserRef } };
  /** None: Keystone's default (an application credential's own scope, a user's default project). */
  scope?: { project: ProjectRef } | { domain: DomainRef };
  /** The catalog's endpoints handed to the plugin are this region's ... */
  region: string;
  /** ... and this interface's. */
  interface: KeystoneInterface;
  /** A CA (PEM file, absolute) trusted besides the system's for Keystone and the entry's hosts. */
  caFile?: string;
}

export const INTERFACES: readonly KeystoneInterface[] = ['public', 'internal', 'admin'];

/** What keystoneSettings builds from, as the credentials file's fields or cloud.conf's keys give it. */
export interface KeystoneInput {
  authURL: string | undefined;
  user: UserRef | undefined;
  /** The secret is a password (else an application credential's). */
  password: boolean;
  credentialID: string | undefined;
  credentialName: string | undefined;
  project: ProjectRef | undefined;
  domain: DomainRef | undefined;
  region: string | undefined;
  interface: string | undefined;
  caFile: string | undefined;
}

/** How the fields are called where the settings come from, for messages. */
export interface FieldNames {
  authURL: string;
  user: string;
  credentialID: string;
  credentialName: string;
  project: string;
  domain: string;
  region: string;
  interface: string;
}

/** The settings of a login, checked as Keystone would take them; `at` and `names` say where, for messages. */
export function keystoneSettings(input: KeystoneInput, at: string, names: FieldNames): KeystoneSettings {
  if (input.authURL === undefined) throw new CredentialFileError(`${at}.${names.authURL} is required`);
  if (input.region === undefined) throw new CredentialFileError(`${at}.${names.region} is required`);
  const iface = input.interface ?? 'public';
  if (!(INTERFACES as readonly string[]).includes(iface)) {
    throw new CredentialFileError(`${at}.${names.interface} must be one of ${INTERFACES.join(', ')}`);
  }
  if (input.project !== undefined && input.domain !== undefined) {
    throw new CredentialFileError(
      `${at}: a token is scoped to a project or a domain: give ${names.project} or ${names.domain}, not both`,
    );
  }
  const scope =
    input.project !== undefined
      ? { project: input.project }
      : input.domain !== undefined
        ? { domain: input.domain }
        : undefined;
  const common = {
    authURL: normalizeAuthURL(input.authURL, `${at}.${names.authURL}`),
    ...(scope !== undefined ? { scope } : {}),
    region: input.region,
    interface: iface as KeystoneInterface,
    ...(input.caFile !== undefined ? { caFile: input.caFile } : {}),
  };
  if (input.password) {
    if (input.credentialID !== undefined || input.credentialName !== undefined) {
      throw new CredentialFileError(
        `${at}: ${input.credentialID !== undefined ? names.credentialID : names.credentialName} is for an application credential, not a password`,
      );
    }
    if (input.user === undefined) throw new CredentialFileError(`${at}: a password needs ${names.user}`);
    return { ...common, auth: { method: 'password', user: input.user } };
  }
  // Keystone refuses a scope in an application credential's login: the credential carries its own.
  if (scope !== undefined) {
    throw new CredentialFileError(
      `${at}: an application credential is scoped already: no ${names.project} or ${names.domain}`,
    );
  }
  if ((input.credentialID === undefined) === (input.credentialName === undefined)) {
    throw new CredentialFileError(
      `${at}: an application credential needs exactly one of ${names.credentialID}, ${names.credentialName}`,
    );
  }
  if (input.credentialID !== undefined) {
    if (input.user !== undefined) {
      throw new CredentialFileError(`${at}: ${names.credentialID} names the credential alone: no ${names.user}`);
    }
    return { ...common, auth: { method: 'application_credential', credential: { id: input.credentialID } } };
  }
  if (input.user === undefined) {
    throw new CredentialFileError(`${at}: ${names.credentialName} needs its owner, ${names.user}`);
  }
  const credential = { name: input.credentialName as string, user: input.user };
  return { ...common, auth: { method: 'application_credential', credential } };
}

function normalizeAuthURL(text: string, at: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CredentialFileError(`${at} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new CredentialFileError(`${at} must be an https URL`);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new CredentialFileError(`${at} must have no user, query or fragment`);
  }
  return url.href.replace(/\/+$/, '');
}
