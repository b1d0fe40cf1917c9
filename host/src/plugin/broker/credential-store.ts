// Holds the brokered credentials on the main thread. They are read from a file (a mounted Secret), re-read when the
// file changes (polled: Secret volumes are updated by swapping a symlink, which file watchers miss), and attached
// by the HTTP broker to requests for the hosts they name. They never reach a plugin's worker unless the operator
// exposed one explicitly (exposeToPlugin), which then lands in that plugin's Extism config.
// AWS keys (awsSigV4 entries) and the secrets of login entries (keystone, vsphere) sit in files of their own, read
// with the credentials file and re-read on every poll (credential-load.ts); login-sessions.ts keeps the logins'
// sessions, and the temporary credentials of AWS entries without key files (aws-credential-flow.ts).
import type { ConnectionOptions } from 'node:tls';
import { type Logger, silentLogger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';
import type { HostAllowList } from './allow-list.ts';
import {
  credentialNaming,
  defaultPortMatches,
  postReads,
  type UnreachableCredentialHost,
  unreachableHosts,
} from './credential-hosts.ts';
import type { PostReads } from './request-effect.ts';
import { type AwsAccessKey, presigningParameter, type SignableRequest, SigV4Signer } from './sigv4-signer.ts';
import { type AwsSigV4Entry, signingService } from './aws-sigv4-entry.ts';
export type { UnreachableCredentialHost } from './credential-hosts.ts';
import {
  type Credential,
  CredentialFileError,
  credentialHeaders,
  exposedValue,
  secretValues,
} from './credential-file.ts';
import { type Loaded, loadCredentials } from './credential-load.ts';
import type { SessionAnswer } from './login-flow.ts';
import { LoginSessions, type LoginSessionsOptions, type SessionUse } from './login-sessions.ts';
import { type AwsKeyHeld, awsKeyOf, REGION_CONFIG_KEY, refusesAwsSession } from './aws-credential-flow.ts';

/**
 * A request the broker must not make: plain http to the endpoint a credential names, which would put the secret (or a
 * replayable signature) on the wire in clear text. The broker answers it with `Forbidden`.
 */
export class CredentialRefusal extends Error {
  override name = 'CredentialRefusal';
}

/** A request as the host sends it: its headers, and the query to send instead of the URL's (a signed one). */
export interface AuthorizedRequest {
  headers: Record<string, string>;
  search?: string;
  /** The credential's secret values on the wire (tokens, keys): redacted from the answer in any spelling (redact.ts). */
  secrets: string[];
  /** This request's one-time secrets (a SigV4 Authorization value and its signature): redacted as sent. */
  requestSecrets?: string[];
  /** The SigV4 signature, which later answers must not show either while a replay is possible. */
  signature?: string;
  /** A login's session, which the cloud refused (refused): the request authorized anew, by a new session. */
  renew?: () => Promise<AuthorizedRequest | undefined>;
  /** Whether an answer refuses the login's session (default: a 401). */
  refused?: (answer: SessionAnswer) => boolean;
}

// Headers only the signer may set: a plugin's own would be sent beside (or instead of) the signed ones.
const SIGV4_HEADERS = ['authorization', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token'];
// A request with a credential asks for an answer the redactor can read: a compressed echo would hide the secrets.
const UNCOMPRESSED = { 'accept-encoding': 'identity' } as const;

export interface CredentialStoreOptions {
  file: string;
  /** How often the file is re-read; 0 disables polling. Default 10 s. */
  reloadIntervalMs?: number;
  /** Extism config key -> credential name: the explicit opt-in to hand a secret to the plugin itself. */
  exposeToPlugin?: Record<string, string>;
  logger: Logger;
  /** The broker's TLS options, for the logins too. */
  tls?: ConnectionOptions;
  /** Told each login's outcome: a login entry's, or an AWS entry's fetch of temporary credentials. */
  onLogin?: (credential: string, ok: boolean) => void;
  /** The login keepers' clock and backoff (tests). */
  logins?: Pick<LoginSessionsOptions, 'now' | 'minBackoffMs' | 'maxBackoffMs' | 'minRefusalLoginIntervalMs'>;
}

export class CredentialStore {
  readonly #options: CredentialStoreOptions;
  #credentials: Credential[] = [];
  #awsKeys = new Map<string, AwsAccessKey>();
  /** Per credential and signing service; rebuilt when the files change. */
  #signers = new Map<string, { key: AwsAccessKey; signer: SigV4Signer }>();
  #snapshot = '';
  #hasCa = false;
  #timer: NodeJS.Timeout | undefined;
  #listeners: Array<() => void> = [];
  readonly #logins: LoginSessions;

  private constructor(options: CredentialStoreOptions) {
    this.#options = options;
    this.#logins = new LoginSessions({
      ...options.logins,
      ...(options.tls ? { tls: options.tls } : {}),
      ...(options.onLogin ? { onLogin: options.onLogin } : {}),
      logger: options.logger,
    });
  }

  /** Reads the file; a missing or invalid file at start-up is an error (the operator must fix it). */
  static async open(options: CredentialStoreOptions): Promise<CredentialStore> {
    const store = new CredentialStore(options);
    store.#install(await loadCredentials(store.#options.file));
    const interval = options.reloadIntervalMs ?? 10_000;
    if (interval > 0) {
      store.#timer = setInterval(() => void store.reload(), interval);
      store.#timer.unref();
    }
    return store;
  }

  /** An empty store, for plugins without credentials. */
  static empty(): CredentialStore {
    return new CredentialStore({
      file: '',
      logger: silentLogger,
    });
  }

  get names(): string[] {
    return this.#credentials.map((c) => c.name);
  }

  /**
   * Re-reads the file. A file that became unreadable or invalid keeps the previous credentials (logged): a
   * half-written Secret update must not drop authentication. Returns whether anything changed.
   */
  async reload(): Promise<boolean> {
    try {
      const loaded = await loadCredentials(this.#options.file);
      if (loaded.snapshot === this.#snapshot) return false;
      this.#install(loaded);
    } catch (err) {
      this.#options.logger.error('cannot reload credentials; keeping the previous ones', {
        file: this.#options.file,
        error: errorMessage(err),
      });
      return false;
    }
    this.#options.logger.info('credentials reloaded', { file: this.#options.file, credentials: this.names });
    for (const listener of this.#listeners) listener();
    return true;
  }

  /** Called after every successful change. */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Headers a static credential adds to a request for `url` (lower-case names); empty for none or an AWS key. Throws
   * CredentialRefusal for plain http to a credential's endpoint.
   */
  headersFor(url: URL): Record<string, string> {
    const credential = this.#credentialFor(url);
    return credential === undefined || credential.secret.kind === 'awsSigV4' || credential.secret.kind === 'login'
      ? {}
      : credentialHeaders(credential.secret);
  }

  /**
   * The complete request (lower-case header names) with the credential of its host, if any: its headers added, or,
   * for an AWS key, the request signed as it stands (method, URL, headers, body), so this is the last change made to
   * it. Undefined when no credential names the host. Throws SigV4Error for a request that cannot be signed, and
   * CredentialRefusal for plain http to a credential's endpoint.
   */
  authorize(request: SignableRequest): AuthorizedRequest | Promise<AuthorizedRequest> | undefined {
    const credential = this.#credentialFor(request.url);
    if (credential === undefined) return undefined;
    const secret = credential.secret;
    if (secret.kind === 'awsSigV4') return this.#sign(credential.name, secret.entry, request);
    if (secret.kind === 'login') {
      const refusal = this.#logins.refusal(credential.name, request);
      if (refusal !== undefined) throw new CredentialRefusal(`request to ${request.url.host} refused: ${refusal}`);
      const use = this.#logins.use(credential.name, request.url);
      return use instanceof Promise ? use.then((u) => withSession(request, u)) : withSession(request, use);
    }
    // Synchronous: most requests carry a static credential or none, and an await per request costs CPU.
    return {
      headers: { ...request.headers, ...UNCOMPRESSED, ...credentialHeaders(secret) },
      secrets: secretValues(secret),
    };
  }

  async #sign(name: string, entry: AwsSigV4Entry, request: SignableRequest): Promise<AuthorizedRequest> {
    // Refused rather than dropped: the plugin asked for a request the host would not be sending as written.
    const presigned = presigningParameter(request.url.search);
    if (presigned !== undefined) {
      throw new CredentialRefusal(
        `request to ${request.url.host} refused: the host signs it, and the plugin's query parameter ${presigned} would be a second signature's`,
      );
    }
    const held = await this.#awsKey(name);
    const signed = await this.#signWith(name, entry, held, request);
    const { renew } = held;
    if (renew === undefined) return signed;
    // Temporary credentials AWS calls expired (revoked early, or a clock ahead of AWS's) are fetched again and the
    // request signed with them once more, as a login's refused session is renewed.
    return {
      ...signed,
      refused: refusesAwsSession,
      renew: async () => {
        const renewed = await renew();
        return renewed === undefined ? undefined : this.#signWith(name, entry, renewed, request);
      },
    };
  }

  async #signWith(
    name: string,
    entry: AwsSigV4Entry,
    { key, secrets }: AwsKeyHeld,
    request: SignableRequest,
  ): Promise<AuthorizedRequest> {
    const service = signingService(entry, request.url.hostname);
    const signerKey = `${name}\0${service}`;
    let signer = this.#signers.get(signerKey);
    // Temporary credentials are renewed: a signer holds one key.
    if (signer?.key !== key) {
      signer = { key, signer: new SigV4Signer(key, { region: entry.region, service }) };
      this.#signers.set(signerKey, signer);
    }
    const headers: Record<string, string> = { ...request.headers, ...UNCOMPRESSED };
    for (const header of SIGV4_HEADERS) delete headers[header];
    const signed = await signer.signer.sign({ ...request, headers });
    const authorization = signed.headers.authorization ?? '';
    const signature = /Signature=([0-9a-f]+)/.exec(authorization)?.[1];
    return {
      headers: { ...headers, ...signed.headers },
      search: signed.search,
      secrets: [...secrets],
      requestSecrets: [authorization, ...(signature ? [signature] : [])],
      ...(signature ? { signature } : {}),
    };
  }

  // A static key as read from its files; temporary credentials as their keeper holds them (a source asked at load,
  // renewed ahead of expiry), with the secrets of every set it held that has not expired.
  async #awsKey(name: string): Promise<AwsKeyHeld> {
    const key = this.#awsKeys.get(name);
    // The secret key never goes on the wire, but a server could still show it: redacted like a token.
    if (key !== undefined)
      return { key, secrets: [key.secretAccessKey, ...(key.sessionToken ? [key.sessionToken] : [])] };
    return awsKeyOf(await this.#logins.data(name));
  }

  /** What the credential of `url`'s endpoint says about its POSTs (credential-hosts.ts); never throws. */
  postReadsFor(url: URL): PostReads | undefined {
    return postReads(this.#credentials, url);
  }

  // A plugin choosing http:// for a credential's endpoint (keys.example:8443 serves both, or an attacker on the path
  // answers plain http) would have the secret sent in clear text: refused, unless the entry is a loopback test host's.
  #credentialFor(url: URL): Credential | undefined {
    const credential = credentialNaming(this.#credentials, url);
    if (credential === undefined || url.protocol === 'https:' || credential.insecure) return credential;
    throw new CredentialRefusal(
      `plain http to ${url.host} refused: credential '${credential.name}' goes over https only (an entry says "insecure": true only for a loopback test host)`,
    );
  }

  /** See credential-hosts.ts. */
  unreachableHosts(allowList: HostAllowList): UnreachableCredentialHost[] {
    return unreachableHosts(this.#credentials, allowList);
  }

  /** See credential-hosts.ts. */
  defaultPortMatches(allowList: HostAllowList): Required<UnreachableCredentialHost>[] {
    return defaultPortMatches(this.#credentials, allowList);
  }

  /** Logs a warning for each of unreachableHosts(allowList): at start and after every reload. */
  warnUnreachable(allowList: HostAllowList): void {
    for (const { credential, host, allowedHost } of this.unreachableHosts(allowList)) {
      const hint =
        allowedHost === undefined
          ? 'no allowed host has this name'
          : `write "${allowedHost}" (a host without a port means the scheme's default port, 443 or 80)`;
      this.#options.logger.warn('credential host matches no allowed host: the credential is never attached', {
        credential,
        host,
        ...(allowedHost !== undefined ? { allowedHost } : {}),
        hint,
      });
    }
  }

  /** The Extism config for the plugin: only the explicitly exposed credentials. */
  exposedConfig(): Record<string, string> {
    const config: Record<string, string> = {};
    for (const [key, name] of Object.entries(this.#options.exposeToPlugin ?? {})) {
      const credential = this.#credentials.find((c) => c.name === name);
      if (credential === undefined)
        throw new CredentialFileError(`exposeToPlugin: no credential named '${name}' (for config key '${key}')`);
      if (credential.secret.kind === 'awsSigV4') {
        throw new CredentialFileError(
          `exposeToPlugin: credential '${name}' is an AWS key, which the host only signs with`,
        );
      }
      if (credential.secret.kind === 'login') {
        throw new CredentialFileError(
          `exposeToPlugin: credential '${name}' is a login, whose session only the host holds`,
        );
      }
      config[key] = exposedValue(credential.secret);
    }
    return config;
  }

  /** Logs every login entry in, at load (LoginSessions.start); rejects naming the credential and what answered. */
  async startLogins(): Promise<void> {
    await this.#logins.start();
    this.#credentials = this.#logins.withSessionHosts(this.#credentials);
  }

  /** Every login entry's catalog hosts (`host:port`), which the plugin's allow-list gains. */
  catalogHosts(): string[] {
    return this.#logins.allHosts();
  }

  /** The plugin's Extism config: the exposed credentials and what the logins at load gave (a catalog). */
  pluginConfig(): Record<string, string> {
    return { ...this.#staticAwsRegion(), ...this.exposedConfig(), ...this.#logins.pluginConfig() };
  }

  // The region an AWS key signs for (no secret), as the AWS entries with sources give it: the plugin's region when
  // its cloud config names none.
  #staticAwsRegion(): Record<string, string> {
    const aws = this.#credentials.find((c) => c.secret.kind === 'awsSigV4' && this.#awsKeys.has(c.name));
    return aws?.secret.kind === 'awsSigV4' ? { [REGION_CONFIG_KEY]: aws.secret.entry.region } : {};
  }

  /** The plugin's cloud config (ccm_initialize) without the secrets the host logs in with. */
  pluginCloudConfig(text: string): string {
    return this.#logins.pluginCloudConfig(text);
  }

  /** The CA a login entry trusts besides the system's, for a request to `url`. */
  caFor(url: URL): string | undefined {
    if (!this.#hasCa) return undefined;
    const credential = credentialNaming(this.#credentials, url);
    return credential === undefined ? undefined : this.#logins.caOf(credential.name);
  }

  get exposesSecrets(): boolean {
    return Object.keys(this.#options.exposeToPlugin ?? {}).length > 0;
  }

  close(): void {
    clearInterval(this.#timer);
    this.#listeners = [];
    this.#logins.close();
  }

  #install(loaded: Loaded): void {
    const previous = { credentials: this.#credentials, awsKeys: this.#awsKeys };
    this.#credentials = loaded.credentials;
    this.#awsKeys = loaded.awsKeys;
    try {
      // Validate exposures now so a bad reference fails loudly at start-up or reload.
      this.exposedConfig();
    } catch (err) {
      this.#credentials = previous.credentials;
      this.#awsKeys = previous.awsKeys;
      throw err;
    }
    this.#snapshot = loaded.snapshot;
    this.#signers.clear();
    this.#logins.install(loaded.logins);
    this.#hasCa = loaded.logins.some((l) => l.ca !== undefined);
    this.#credentials = this.#logins.withSessionHosts(loaded.credentials);
  }
}

// The session's headers win over the plugin's; its secrets (the entry's and every token held) are redacted.
function withSession(request: SignableRequest, use: SessionUse): AuthorizedRequest {
  return {
    headers: { ...request.headers, ...UNCOMPRESSED, ...use.headers },
    secrets: use.secrets as string[],
    refused: use.refused,
    renew: async () => {
      const renewed = await use.renew();
      return renewed === undefined ? undefined : withSession(request, renewed);
    },
  };
}
