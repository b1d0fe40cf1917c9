// Login flows: credentials the host cannot attach as they stand, but exchanges for a session first (a Keystone token,
// later a vSphere session cookie), over the host's own HTTP client. A flow says how to log in and what the session
// attaches; the SessionKeeper holds one credential's session for the broker: one login in flight at a time (the
// requests that need it wait for it), a renewal ahead of expiry while the old session still serves, a renewal once
// when the cloud refuses the session (a 401, or what the flow says a refusal looks like), and a backoff after a failed login, during which requests fail at once
// with the failure. The plugin never sees the entry's secret or a session's: both are redacted from every answer to
// a request that carried the session (redact.ts), including the sessions this keeper held before (a request bin may
// show an earlier request).
import type { Logger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';
import { BrokerError } from './broker-error.ts';
import { SecretRedactor } from './redact.ts';

/** A request a flow makes to log in (never through the plugin's broker path: no allow-list, no plugin headers). */
export interface LoginRequest {
  method: string;
  url: URL;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: Uint8Array;
  /** How long the exchange may take (default 30 s): a metadata service on this machine answers in milliseconds. */
  timeoutMs?: number;
}

export interface LoginResponse {
  status: number;
  /** Lower-case names; a repeated header's values joined by `, `. */
  headers: Record<string, string>;
  body: Buffer;
}

/** The host's HTTP client for logins; rejects on transport errors and its own timeout. */
export type LoginExchange = (request: LoginRequest) => Promise<LoginResponse>;

/** Headers a session attaches to the requests whose path starts with `pathPrefix` (lower-case names). */
export interface SessionRoute {
  pathPrefix: string;
  headers: Readonly<Record<string, string>>;
}

/** What a login gives. */
export interface LoginSession<Data = unknown> {
  /** Added to every request to the credential's hosts (lower-case names) that no route takes. */
  headers: Readonly<Record<string, string>>;
  /** Sessions of one login that differ by API (vSphere's SOAP cookie for /sdk, its REST session for /rest/). */
  routes?: readonly SessionRoute[];
  /** How long the session lasts from the moment the login was sent. */
  lifetimeMs: number;
  /** The session's secret values as sent (a token, a cookie): redacted from answers, never in a message. */
  secrets: readonly string[];
  /** What else the flow learnt (a service catalog). */
  data: Data;
}

export interface LoginFlow<Data = unknown> {
  /** The kind of login (`keystone`). */
  readonly kind: string;
  /** What the flow logs in to, for messages: `keystone https://keystone.example:5000/v3`. */
  readonly target: string;
  /** The entry's own secrets (a password): redacted from answers and login errors. */
  readonly secrets: readonly string[];
  /** Logs in; rejects with LoginError when the server refuses or answers something unusable. */
  logIn(exchange: LoginExchange): Promise<LoginSession<Data>>;
  /**
   * Extism config entries the session's data gives the plugin (never a secret); `sole` when the entry is the only
   * one of its kind (a plugin cannot list its config's keys: a key without the credential's name finds it).
   */
  pluginConfig?(credential: string, data: Data, sole: boolean): Record<string, string>;
  /** The endpoints the session's data names: an entry's hosts when it says `hostsFromCatalog`. */
  endpoints?(data: Data): URL[];
  /** The plugin's cloud config without the secrets this flow logs in with, where it holds them. */
  pluginCloudConfig?(text: string): string;
  /** Whether an answer refuses the session (a new login is due); default: a 401 (refusedByStatus). */
  refused?(answer: SessionAnswer): boolean;
  /**
   * Why the plugin may not send `request` with the session (it would hand out, copy or end the session: a vSphere
   * clone ticket, a logout), or undefined. The broker refuses such a request before any session is attached.
   */
  refuseRequest?(request: SessionRequest): string | undefined;
}

/** A plugin's request as a flow judges it before a session goes on it. */
export interface SessionRequest {
  method: string;
  url: URL;
  body?: Uint8Array;
}

/** An answer to a request that carried a session, as the broker received it. */
export interface SessionAnswer {
  status: number;
  chunks: readonly Buffer[];
}

/** The headers `session` attaches to a request for `url`: its first route's that takes the path, else its own. */
export function sessionHeaders(session: LoginSession, url: URL): Readonly<Record<string, string>> {
  const route = session.routes?.find((r) => url.pathname.startsWith(r.pathPrefix));
  return route?.headers ?? session.headers;
}

/** Whether an answer says the server refused the session: 401 unless the flow says otherwise. */
export const refusedByStatus = (answer: SessionAnswer): boolean => answer.status === 401;

/** A login the server refused or answered unusably; `status` when it answered. */
export class LoginError extends Error {
  override name = 'LoginError';
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

export interface SessionKeeperOptions<Data> {
  /** The credential's name, for messages. */
  credential: string;
  flow: LoginFlow<Data>;
  exchange: LoginExchange;
  logger: Logger;
  /** Told each login's outcome (the cloud API metrics count them). */
  onLogin?: (credential: string, ok: boolean) => void;
  /** A monotonic clock in ms (tests give a fake one). */
  now?: () => number;
  /** The wait after a first failed login, doubled after each further one up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * The least time between two logins for 401s (default 1 s): an endpoint that refuses every token would otherwise
   * make a login of every request. A session refused sooner is not renewed: the 401 is the answer.
   */
  minRefusalLoginIntervalMs?: number;
}

/** A session in use, and when it is renewed and ends, on the keeper's clock. */
export interface HeldSession<Data = unknown> {
  session: LoginSession<Data>;
  renewAt: number;
  expiresAt: number;
}

interface Failure {
  error: BrokerError;
  at: number;
  retryAt: number;
  backoffMs: number;
}

const RENEW_AHEAD_MS = 5 * 60_000;
const DEFAULT_MIN_BACKOFF_MS = 1_000;
const DEFAULT_MAX_BACKOFF_MS = 60_000;
const DEFAULT_MIN_REFUSAL_LOGIN_INTERVAL_MS = 1_000;
// Sessions kept for redaction after they stopped being used, until they end: enough for a renewal every few minutes.
const MAX_REMEMBERED_SESSIONS = 16;

/** When a session obtained at `at` and lasting `lifetimeMs` is renewed: at 3/4 of its life or 5 min before its end. */
export function renewalTime(at: number, lifetimeMs: number): number {
  return at + Math.max(0, Math.min(lifetimeMs * 0.75, lifetimeMs - RENEW_AHEAD_MS));
}

export class SessionKeeper<Data = unknown> {
  readonly #options: SessionKeeperOptions<Data>;
  readonly #now: () => number;
  #held: HeldSession<Data> | undefined;
  #login: Promise<HeldSession<Data>> | undefined;
  #failure: Failure | undefined;
  /** When the last login for a 401 went out. */
  #lastRefusalLogin: number | undefined;
  /** Every session's secrets held until it ends (the current one last). */
  #remembered: Array<{ secrets: readonly string[]; expiresAt: number }> = [];
  #secrets: readonly string[];
  #logins = 0;

  constructor(options: SessionKeeperOptions<Data>) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#secrets = [...options.flow.secrets];
  }

  /** Logins sent so far (tests, logs). */
  get logins(): number {
    return this.#logins;
  }

  /**
   * The entry's secrets and those of every session this keeper held that has not ended: what an answer to a request
   * carrying one of its sessions must not show. The same array until a session is added or ends (the redactor
   * caches its searches per set of secrets).
   */
  get secrets(): readonly string[] {
    const now = this.#now();
    if (this.#remembered.some((r) => r.expiresAt <= now)) {
      this.#remembered = this.#remembered.filter((r) => r.expiresAt > now);
      this.#updateSecrets();
    }
    return this.#secrets;
  }

  /**
   * The session to attach now: synchronously while one is valid (a renewal starts in the background once it is due);
   * otherwise after a login, shared with every request that waits for one. Throws (or rejects with) a `Network`
   * BrokerError naming the credential while logins fail, without a new login until the backoff has passed.
   */
  current(): HeldSession<Data> | Promise<HeldSession<Data>> {
    const now = this.#now();
    const held = this.#held;
    if (held !== undefined && now < held.expiresAt) {
      if (now >= held.renewAt && this.#login === undefined && !this.#backingOff(now)) {
        // Errors are logged and remembered by #logIn; the old session serves until it ends.
        this.#logIn().catch(() => {});
      }
      return held;
    }
    return this.#fresh(now);
  }

  /**
   * A session to resend with after the cloud refused `rejected` (401): one new login for all the requests that saw
   * it refused; a session obtained since is used as it is. Undefined when the last login for a 401 went out less than
   * minRefusalLoginIntervalMs ago: the cloud refuses fresh sessions too, and its 401 is the answer.
   */
  renew(rejected: HeldSession<Data>): Promise<HeldSession<Data> | undefined> {
    const now = this.#now();
    if (this.#held !== undefined && this.#held !== rejected && now < this.#held.expiresAt) {
      return Promise.resolve(this.#held);
    }
    if (this.#login !== undefined) return this.#login;
    if (this.#held === rejected) {
      const interval = this.#options.minRefusalLoginIntervalMs ?? DEFAULT_MIN_REFUSAL_LOGIN_INTERVAL_MS;
      if (this.#lastRefusalLogin !== undefined && now - this.#lastRefusalLogin < interval) {
        return Promise.resolve(undefined);
      }
      this.#held = undefined;
    }
    this.#lastRefusalLogin = now;
    try {
      return this.#fresh(now);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  #fresh(now: number): Promise<HeldSession<Data>> {
    if (this.#login !== undefined) return this.#login;
    const failure = this.#failure;
    if (failure !== undefined && now < failure.retryAt) {
      throw new BrokerError(
        'Network',
        `${failure.error.message} (${seconds(now - failure.at)} ago; next login in ${seconds(failure.retryAt - now)})`,
      );
    }
    return this.#logIn();
  }

  #backingOff(now: number): boolean {
    return this.#failure !== undefined && now < this.#failure.retryAt;
  }

  #logIn(): Promise<HeldSession<Data>> {
    const { flow, exchange, credential, logger } = this.#options;
    const started = this.#now();
    this.#logins++;
    const login = flow.logIn(exchange).then(
      (session) => {
        const held: HeldSession<Data> = {
          session,
          renewAt: renewalTime(started, session.lifetimeMs),
          expiresAt: started + session.lifetimeMs,
        };
        this.#held = held;
        this.#failure = undefined;
        this.#remember(session.secrets, held.expiresAt);
        logger.debug('logged in', { credential, target: flow.target, lifetimeSeconds: session.lifetimeMs / 1000 });
        this.#options.onLogin?.(credential, true);
        return held;
      },
      (err: unknown) => {
        const error = this.#failed(err);
        const previous = this.#failure?.backoffMs;
        const min = this.#options.minBackoffMs ?? DEFAULT_MIN_BACKOFF_MS;
        const backoffMs =
          previous === undefined ? min : Math.min(previous * 2, this.#options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
        const at = this.#now();
        this.#failure = { error, at, retryAt: at + backoffMs, backoffMs };
        logger.warn('login failed', { credential, target: flow.target, error: error.message, retryInMs: backoffMs });
        this.#options.onLogin?.(credential, false);
        throw error;
      },
    );
    const settled = login.finally(() => {
      this.#login = undefined;
    });
    // The caller handles the rejection; this copy only clears the flight.
    settled.catch(() => {});
    this.#login = login;
    return login;
  }

  // The message names the credential and what answered, never a secret: a server's text quoting one is redacted.
  #failed(err: unknown): BrokerError {
    const { credential, flow } = this.#options;
    const detail = new SecretRedactor(flow.secrets).text(errorMessage(err));
    return new BrokerError('Network', `credential '${credential}': login to ${flow.target} failed: ${detail}`);
  }

  #remember(secrets: readonly string[], expiresAt: number): void {
    const now = this.#now();
    this.#remembered = [...this.#remembered.filter((r) => r.expiresAt > now), { secrets, expiresAt }].slice(
      -MAX_REMEMBERED_SESSIONS,
    );
    this.#updateSecrets();
  }

  #updateSecrets(): void {
    this.#secrets = [...new Set([...this.#options.flow.secrets, ...this.#remembered.flatMap((r) => r.secrets)])];
  }
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}
