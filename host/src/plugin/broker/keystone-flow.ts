// The Keystone v3 login flow (login-flow.ts): `POST {authURL}/auth/tokens` with a password or an application
// credential, scoped as the entry says; the token comes in the X-Subject-Token header and goes on every request to the
// entry's hosts as X-Auth-Token; its lifetime is token.expires_at - token.issued_at (both Keystone's clock, so a skew
// between the clocks does not shorten or stretch it); the service catalog, filtered to the entry's region and
// interface, is handed to the plugin as URLs only (`keystone.<credential>.catalog` in its Extism config).
import { cloudConfAuthURL, withoutSecretKeys } from './cloud-conf.ts';
import type { Credential } from './credential-file.ts';
import { type KeystoneEntry, type KeystoneLogin, readKeystoneLogin } from './keystone-entry.ts';
import type { DomainRef, UserRef } from './keystone-settings.ts';
import { type LoginExchange, LoginError, type LoginFlow, type LoginSession } from './login-flow.ts';
import type { LoginEntry } from './login-sessions.ts';

export interface CatalogEndpoint {
  /** The service's type (compute, network, load-balancer...). */
  type: string;
  /** The service's name (nova, neutron, octavia...). */
  name: string;
  url: string;
}

/** What the plugin reads from `keystone.<credential>.catalog`. */
export interface KeystoneCatalog {
  region: string;
  interface: string;
  endpoints: CatalogEndpoint[];
}

/** The Extism config key of a keystone credential's catalog. */
export const catalogConfigKey = (credential: string): string => `keystone.${credential}.catalog`;
/** The key of the catalog of the only keystone entry, as well. */
export const SOLE_CATALOG_KEY = 'keystone.catalog';

// Fernet tokens are ~200 bytes, PKI tokens once were kilobytes; anything longer is not a token.
const TOKEN = /^[!-~]{1,16384}$/;
const MAX_MESSAGE = 300;

export class KeystoneFlow implements LoginFlow<KeystoneCatalog> {
  readonly kind = 'keystone';
  readonly target: string;
  readonly secrets: readonly string[];
  readonly #login: KeystoneLogin;
  readonly #body: Uint8Array;

  constructor(login: KeystoneLogin) {
    this.#login = login;
    this.target = `keystone ${login.settings.authURL}`;
    this.secrets = [login.secret];
    this.#body = new TextEncoder().encode(JSON.stringify(authRequest(login)));
  }

  async logIn(exchange: LoginExchange): Promise<LoginSession<KeystoneCatalog>> {
    const response = await exchange({
      method: 'POST',
      url: new URL(`${this.#login.settings.authURL}/auth/tokens`),
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: this.#body,
    });
    if (response.status !== 201 && response.status !== 200) {
      throw new LoginError(`Keystone answered ${response.status}${keystoneMessage(response.body)}`, response.status);
    }
    const token = response.headers['x-subject-token'];
    if (token === undefined || !TOKEN.test(token)) {
      throw new LoginError(`Keystone answered ${response.status} without a usable X-Subject-Token`, response.status);
    }
    const body = parseToken(response.body, response.status);
    return {
      headers: { 'x-auth-token': token },
      lifetimeMs: body.lifetimeMs,
      secrets: [token],
      data: this.#catalog(body.catalog),
    };
  }

  pluginConfig(credential: string, catalog: KeystoneCatalog, sole: boolean): Record<string, string> {
    const json = JSON.stringify(catalog);
    return { [catalogConfigKey(credential)]: json, ...(sole ? { [SOLE_CATALOG_KEY]: json } : {}) };
  }

  // OCCM's cloud.conf for this Keystone (often the very file the entry reads) loses [Global]'s secret keys.
  pluginCloudConfig(text: string): string {
    return cloudConfAuthURL(text) === this.#login.settings.authURL ? withoutSecretKeys(text) : text;
  }

  // Not Keystone's own: with the host's token, the identity API would hand a plugin what the token is meant to keep
  // from it (a new application credential's secret, a token of its own).
  endpoints(catalog: KeystoneCatalog): URL[] {
    const identity = new URL(this.#login.settings.authURL).origin;
    const urls: URL[] = [];
    for (const endpoint of catalog.endpoints) {
      if (endpoint.type === 'identity') continue;
      try {
        const url = new URL(endpoint.url);
        if (url.origin !== identity) urls.push(url);
      } catch {
        // Not a URL: no host to attach the token to.
      }
    }
    return urls;
  }

  // The entry's region (by ID or by name: Keystone gives both) and interface only, in Keystone's order.
  #catalog(services: unknown): KeystoneCatalog {
    const { region, interface: iface } = this.#login.settings;
    const endpoints: CatalogEndpoint[] = [];
    for (const service of Array.isArray(services) ? services : []) {
      if (!isObject(service) || !Array.isArray(service.endpoints)) continue;
      const type = typeof service.type === 'string' ? service.type : '';
      const name = typeof service.name === 'string' ? service.name : '';
      for (const endpoint of service.endpoints) {
        if (!isObject(endpoint) || endpoint.interface !== iface || typeof endpoint.url !== 'string') continue;
        if (endpoint.region_id !== region && endpoint.region !== region) continue;
        endpoints.push({ type, name, url: endpoint.url });
      }
    }
    return { region, interface: iface, endpoints };
  }
}

/** A keystone entry of the credentials file with its files read (`at` names it in messages). */
export async function keystoneLoginEntry(
  credential: Credential,
  entry: KeystoneEntry,
  at: string,
): Promise<LoginEntry> {
  const login = await readKeystoneLogin(entry, at, credential.insecure, credential.hosts);
  return {
    name: credential.name,
    flow: new KeystoneFlow(login),
    // Everything the login depends on: a change to any of it (a rotated secret) replaces the session.
    key: JSON.stringify(login),
    ...(login.ca !== undefined ? { ca: login.ca } : {}),
    insecure: login.insecure,
    hostsFromCatalog: credential.hostsFromCatalog,
  };
}

/** The body of `POST /v3/auth/tokens` for the entry. */
export function authRequest(login: KeystoneLogin): unknown {
  const { auth, scope } = login.settings;
  const identity =
    auth.method === 'password'
      ? { methods: ['password'], password: { user: { ...user(auth.user), password: login.secret } } }
      : {
          methods: ['application_credential'],
          application_credential:
            'id' in auth.credential
              ? { id: auth.credential.id, secret: login.secret }
              : { name: auth.credential.name, user: user(auth.credential.user), secret: login.secret },
        };
  if (scope === undefined) return { auth: { identity } };
  const scoped =
    'project' in scope
      ? {
          project:
            'id' in scope.project
              ? { id: scope.project.id }
              : { name: scope.project.name, domain: domainOf(scope.project.domain) },
        }
      : { domain: domainOf(scope.domain) };
  return { auth: { identity, scope: scoped } };
}

function user(ref: UserRef): Record<string, unknown> {
  return 'id' in ref ? { id: ref.id } : { name: ref.name, domain: domainOf(ref.domain) };
}

function domainOf(ref: DomainRef): DomainRef {
  return 'id' in ref ? { id: ref.id } : { name: ref.name };
}

function parseToken(body: Buffer, status: number): { lifetimeMs: number; catalog: unknown } {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw new LoginError(`Keystone answered ${status} with a body that is not JSON`, status);
  }
  const token = isObject(doc) ? doc.token : undefined;
  if (!isObject(token)) throw new LoginError(`Keystone answered ${status} without a token object`, status);
  const expires = typeof token.expires_at === 'string' ? Date.parse(token.expires_at) : NaN;
  if (Number.isNaN(expires))
    throw new LoginError(`Keystone answered ${status} without a valid token.expires_at`, status);
  const issued = typeof token.issued_at === 'string' ? Date.parse(token.issued_at) : NaN;
  const lifetimeMs = expires - (Number.isNaN(issued) ? Date.now() : issued);
  if (!(lifetimeMs > 0)) throw new LoginError(`Keystone answered ${status} with a token that has expired`, status);
  return { lifetimeMs, catalog: token.catalog };
}

// Keystone's error body, {"error": {"code", "title", "message"}}: its message says what was wrong.
function keystoneMessage(body: Buffer): string {
  try {
    const doc: unknown = JSON.parse(body.toString('utf8'));
    const error = isObject(doc) && isObject(doc.error) ? doc.error : undefined;
    const title = typeof error?.title === 'string' ? error.title : '';
    const message = typeof error?.message === 'string' ? error.message : '';
    const text = [title, message].filter((t) => t !== '').join(': ');
    return text === '' ? '' : ` (${text.slice(0, MAX_MESSAGE)})`;
  } catch {
    return '';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
