// The credential store's login entries (login-flow.ts): a SessionKeeper per entry, the host's own HTTP client for
// the logins (an HTTP/1.1 pool per origin, no allow-list: the identity service is the host's business, not the
// plugin's), and what the first login at load gave, which holds for the loaded plugin's life: the Extism config
// the plugin gets (a catalog) and, for an entry with `hostsFromCatalog`, the hosts the session is attached to.
// A reload of the credentials file that changes an entry (its settings, its secret) replaces its keeper: the next
// request logs in with the new secret. Its hosts and config stay as at load.
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import { BrokerError } from './broker-error.ts';
import type { Logger } from '../../log/logger.ts';
import { Http1Pool } from '../../net/http1/pool.ts';
import { type HostPort, isLoopback } from './allow-list.ts';
import type { Credential } from './credential-file.ts';
import type {
  LoginExchange,
  LoginFlow,
  LoginRequest,
  LoginResponse,
  SessionAnswer,
  SessionRequest,
} from './login-flow.ts';
import { type HeldSession, refusedByStatus, SessionKeeper, sessionHeaders } from './login-flow.ts';

/** One login entry as the credentials file gives it, its files read. */
export interface LoginEntry {
  name: string;
  flow: LoginFlow;
  /** Everything the entry's login depends on (settings, secret, CA): a change replaces the keeper. */
  key: string;
  /** A CA (PEM) trusted besides the system's for the login and the entry's hosts. */
  ca?: string;
  insecure: boolean;
  hostsFromCatalog: boolean;
}

/** A request's session: its headers and secrets, and how to get another after a 401. */
export interface SessionUse {
  headers: Readonly<Record<string, string>>;
  secrets: readonly string[];
  /** Whether an answer refuses the session (LoginFlow.refused). */
  refused: (answer: SessionAnswer) => boolean;
  /** Undefined: no new session (the cloud refuses fresh ones too; its 401 stands). */
  renew: () => Promise<SessionUse | undefined>;
}

/** A session's data (what the flow learnt: an AWS key) and the secrets an answer must not show. */
export interface SessionData {
  data: unknown;
  secrets: readonly string[];
  /** The data of a new session, after the cloud refused this one (SessionKeeper.renew); undefined when none is got. */
  renew: () => Promise<SessionData | undefined>;
}

export interface LoginSessionsOptions {
  /** The broker's TLS options (a private CA...), for the logins too. */
  tls?: ConnectionOptions;
  logger: Logger;
  /** Told each login's outcome (SessionKeeperOptions.onLogin). */
  onLogin?: (credential: string, ok: boolean) => void;
  /** The keepers' clock and backoff (tests). */
  now?: () => number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  minRefusalLoginIntervalMs?: number;
}

interface Keeping {
  entry: LoginEntry;
  keeper: SessionKeeper;
}

/** What the first login of an entry gave, for the plugin's life. */
interface Started {
  config: Record<string, string>;
  hosts: HostPort[];
}

const LOGIN_TIMEOUT_MS = 30_000;
// A catalog of a large cloud is tens of KiB.
const MAX_LOGIN_RESPONSE_BYTES = 4 * 1048576;
const HTTPS_PORT = 443;
const HTTP_PORT = 80;

/** `tls` with `ca` trusted besides the system's CAs and tls's own. */
export function withExtraCa(tls: ConnectionOptions | undefined, ca: string | undefined): ConnectionOptions | undefined {
  if (ca === undefined) return tls;
  const own = tls?.ca === undefined ? [] : Array.isArray(tls.ca) ? tls.ca : [tls.ca];
  return { ...tls, ca: [...rootCertificates, ...own, ca] };
}

export class LoginSessions {
  readonly #options: LoginSessionsOptions;
  #keeping = new Map<string, Keeping>();
  readonly #started = new Map<string, Started>();
  readonly #pools = new Map<string, Http1Pool>();

  constructor(options: LoginSessionsOptions) {
    this.#options = options;
  }

  /** Takes the entries of a (re)load: a keeper per entry, kept where the entry did not change. */
  install(entries: readonly LoginEntry[]): void {
    const next = new Map<string, Keeping>();
    for (const entry of entries) {
      const current = this.#keeping.get(entry.name);
      next.set(entry.name, current?.entry.key === entry.key ? current : { entry, keeper: this.#keeper(entry) });
    }
    this.#keeping = next;
  }

  /**
   * Logs every entry in once (at load, before the plugin starts): the plugin's config and, for hostsFromCatalog, the
   * hosts come from these sessions. Rejects with the first failure, naming the credential.
   */
  async start(): Promise<void> {
    const all = [...this.#keeping.values()];
    await Promise.all(
      all.map(async ({ entry, keeper }) => {
        const held = await keeper.current();
        const data = held.session.data;
        const sole = all.filter((k) => k.entry.flow.kind === entry.flow.kind).length === 1;
        this.#started.set(entry.name, {
          config: entry.flow.pluginConfig?.(entry.name, data, sole) ?? {},
          hosts: entry.hostsFromCatalog ? this.#catalogHosts(entry, data) : [],
        });
      }),
    );
  }

  /** The hosts an entry's catalog gave at load (none before start(), or without hostsFromCatalog). */
  hostsOf(name: string): HostPort[] {
    return this.#started.get(name)?.hosts ?? [];
  }

  /** Every entry's catalog hosts, as `host:port` (for the plugin's allow-list). */
  allHosts(): string[] {
    return [...this.#started.values()].flatMap((s) => s.hosts.map((h) => `${h.hostname}:${h.port}`));
  }

  pluginConfig(): Record<string, string> {
    return Object.assign({}, ...[...this.#started.values()].map((s) => s.config)) as Record<string, string>;
  }

  /** The plugin's cloud config without the secrets any entry logs in with (LoginFlow.pluginCloudConfig). */
  pluginCloudConfig(text: string): string {
    let out = text;
    for (const { entry } of this.#keeping.values()) out = entry.flow.pluginCloudConfig?.(out) ?? out;
    return out;
  }

  caOf(name: string): string | undefined {
    return this.#keeping.get(name)?.entry.ca;
  }

  /** The credentials with each login entry's catalog hosts added, and its insecure as read (cloud.conf's). */
  withSessionHosts(credentials: Credential[]): Credential[] {
    return credentials.map((c) => {
      const entry = this.#keeping.get(c.name)?.entry;
      if (c.secret.kind !== 'login' || entry === undefined) return c;
      const hosts = c.hostsFromCatalog ? [...c.hosts, ...this.hostsOf(c.name)] : c.hosts;
      return { ...c, hosts, insecure: entry.insecure };
    });
  }

  /** Why credential `name`'s flow will not carry `request` (LoginFlow.refuseRequest), or undefined. */
  refusal(name: string, request: SessionRequest): string | undefined {
    return this.#keeping.get(name)?.entry.flow.refuseRequest?.(request);
  }

  /** The session to attach to a request for `url` with credential `name`: synchronously while one is valid. */
  use(name: string, url: URL): SessionUse | Promise<SessionUse> {
    const keeping = this.#keeping.get(name);
    if (keeping === undefined) throw new BrokerError('Network', `credential '${name}' has no login`);
    const { keeper, entry } = keeping;
    const held = keeper.current();
    const use = (h: HeldSession): SessionUse => sessionUse(keeper, h, entry.flow, url);
    return held instanceof Promise ? held.then(use) : use(held);
  }

  /**
   * The data of credential `name`'s current session (an AWS key) and the secrets to redact: synchronously while one
   * is valid, as use() gives headers.
   */
  data(name: string): SessionData | Promise<SessionData> {
    const keeping = this.#keeping.get(name);
    if (keeping === undefined) throw new BrokerError('Network', `credential '${name}' has no login`);
    const { keeper } = keeping;
    const held = keeper.current();
    const data = (h: HeldSession): SessionData => ({
      data: h.session.data,
      secrets: keeper.secrets,
      renew: async () => {
        const renewed = await keeper.renew(h);
        return renewed === undefined ? undefined : data(renewed);
      },
    });
    return held instanceof Promise ? held.then(data) : data(held);
  }

  close(): void {
    for (const pool of this.#pools.values()) pool.destroy();
    this.#pools.clear();
  }

  #keeper(entry: LoginEntry): SessionKeeper {
    const { logger, onLogin, now, minBackoffMs, maxBackoffMs, minRefusalLoginIntervalMs } = this.#options;
    return new SessionKeeper({
      credential: entry.name,
      flow: entry.flow,
      exchange: this.#exchange(entry.ca),
      logger,
      ...(onLogin !== undefined ? { onLogin } : {}),
      ...(now !== undefined ? { now } : {}),
      ...(minBackoffMs !== undefined ? { minBackoffMs } : {}),
      ...(maxBackoffMs !== undefined ? { maxBackoffMs } : {}),
      ...(minRefusalLoginIntervalMs !== undefined ? { minRefusalLoginIntervalMs } : {}),
    });
  }

  // A login goes out as the flow wrote it: no redirects (a password must not follow one), a size cap, a timeout.
  #exchange(ca: string | undefined): LoginExchange {
    return async (request: LoginRequest): Promise<LoginResponse> => {
      const pool = this.#pool(request.url, ca);
      const timeoutMs = request.timeoutMs ?? LOGIN_TIMEOUT_MS;
      const response = await pool.exchange(
        {
          method: request.method,
          path: request.url.pathname + request.url.search,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          headersTimeoutMs: timeoutMs,
          bodyTimeoutMs: timeoutMs,
        },
        {
          signal: AbortSignal.timeout(timeoutMs),
          onAbort: () => new Error(`no answer within ${timeoutMs / 1000} s`),
          maxBytes: MAX_LOGIN_RESPONSE_BYTES,
          tooLarge: (max) => new Error(`the answer is larger than ${max} bytes`),
        },
      );
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      return { status: response.statusCode, headers, body: Buffer.concat(response.chunks) };
    };
  }

  #pool(url: URL, ca: string | undefined): Http1Pool {
    const key = `${url.origin}\0${ca ?? ''}`;
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      const tls = withExtraCa(this.#options.tls, ca);
      pool = new Http1Pool(url.origin, { connections: 2, ...(tls !== undefined ? { tls } : {}) });
      this.#pools.set(key, pool);
    }
    return pool;
  }

  // Each endpoint's host and port (always explicit: a credential host without a port means 443). An endpoint over
  // plain http gets no token unless the entry is insecure, and an insecure entry's endpoints must be on this machine.
  #catalogHosts(entry: LoginEntry, data: unknown): HostPort[] {
    const hosts = new Map<string, HostPort>();
    for (const url of entry.flow.endpoints?.(data) ?? []) {
      const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? HTTPS_PORT : HTTP_PORT;
      const hostname = url.hostname.toLowerCase();
      if (entry.insecure && !isLoopback(hostname)) {
        throw new BrokerError(
          'Network',
          `credential '${entry.name}' is insecure, but its catalog names ${url.host}, which is not a loopback address`,
        );
      }
      if (url.protocol !== 'https:' && !entry.insecure) {
        this.#options.logger.warn('catalog endpoint over plain http: no token is attached to it, nor is it allowed', {
          credential: entry.name,
          endpoint: url.origin,
        });
        continue;
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') continue;
      hosts.set(`${hostname}:${port}`, { hostname, port });
    }
    return [...hosts.values()];
  }
}

// A keeper replaced by a reload while a request used it still renews for that request.
function sessionUse(keeper: SessionKeeper, held: HeldSession, flow: LoginFlow, url: URL): SessionUse {
  return {
    headers: sessionHeaders(held.session, url),
    secrets: keeper.secrets,
    refused: flow.refused !== undefined ? (answer) => flow.refused?.(answer) === true : refusedByStatus,
    renew: async () => {
      const renewed = await keeper.renew(held);
      return renewed === undefined ? undefined : sessionUse(keeper, renewed, flow, url);
    },
  };
}
