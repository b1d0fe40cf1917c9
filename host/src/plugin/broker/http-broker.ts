// Makes the HTTP requests plugins ask for (ccm_http, and ccm_http_bytes with framed binary bodies), on the main
// thread. The broker is where the sandbox's network policy lives: only allow-listed hosts, redirects followed only
// within the allow-list, a response size cap, a per-request timeout bounded by the call's deadline, and credentials
// attached here, never seen by the plugin (an answer that echoes them has them redacted, redact.ts).
import type { ConnectionOptions } from 'node:tls';
import { bodyText } from '../../net/collect.ts';
import { Http1Pool } from '../../net/http1/pool.ts';
import { silentLogger, type Logger, type VerboseLogger } from '../../log/logger.ts';
import { type AuthorizedRequest, CredentialRefusal, type CredentialStore } from './credential-store.ts';
import type { HostAllowList } from './allow-list.ts';
import { BrokerError } from './broker-error.ts';
import { type CloudApiMetrics, noopCloudApiMetrics } from './cloud-api-metrics.ts';
import {
  brokerError,
  flattenHeaders,
  networkError,
  type RawResponse,
  redacted,
  redactedError,
  REPLICA_IDENTITY_HEADER,
  requestHeaders,
  untilAborted,
} from './http-broker-wire.ts';
import { buildFrame, errorFrame } from './http-frame.ts';
import { frameOfJsonRequest, jsonError, jsonOfAnswerFrame } from './http-json.ts';
import { LeaseFence, type ReplicaGuard } from './lease-fence.ts';
import { refusedByStatus } from './login-flow.ts';
import { withExtraCa } from './login-sessions.ts';
import { RecentSignatures } from './recent-signatures.ts';
import { logPluginRequest } from './request-log.ts';
import { SecretRedactor } from './redact.ts';
import { parseRequestFrame, type RequestHead } from './request-frame.ts';
import { mutationReason } from './request-effect.ts';
import { SigV4Error } from './sigv4-signer.ts';

export type { ReplicaGuard } from './lease-fence.ts';
export { REPLICA_IDENTITY_HEADER } from './http-broker-wire.ts';

export interface HttpBrokerOptions {
  allowList: HostAllowList;
  credentials: CredentialStore;
  maxResponseBytes: number;
  /** Used when the plugin asks for no timeout (0), and the most it may ask for. */
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  maxRedirects: number;
  /** Extra CA certificates etc. for https (e.g. a test CA). */
  tls?: ConnectionOptions;
  /** The replica the broker works for: its identity goes with every request, its lease gates cloud changes. */
  replica?: ReplicaGuard;
  /** Sees every request a plugin asks for, before the allow-list (the conformance kit counts cloud mutations). */
  onPluginRequest?: PluginRequestObserver;
  /** Each plugin request at -v=4: method, host, path (never the query), status or error code, duration. */
  logger?: Logger;
  /** Counts and times every request sent (wasm_ccm_cloud_api_*). */
  metrics?: CloudApiMetrics;
}

export type PluginRequestObserver = (method: string, url: string) => void;

/** The answer to a GET the host makes itself (hostGet); the body redacted like a plugin's. */
export interface HostGetAnswer {
  status: number;
  body: string;
}

/** The secrets attached to a request on its way (redact.ts): the credentials' own, and one-time values. */
interface Attached {
  secrets: string[];
  requestSecrets: string[];
}

const isEmpty = (attached: Attached): boolean => attached.secrets.length === 0 && attached.requestSecrets.length === 0;

/** A request as the broker sends it, before its credential. */
interface Outgoing {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_CONNECTIONS_PER_ORIGIN = 64;

export class HttpBroker {
  readonly #options: HttpBrokerOptions;
  /** Keep-alive connections per origin: plugins talk to the same few allow-listed API endpoints over and over. */
  readonly #pools = new Map<string, Http1Pool>();
  /** SigV4 signatures attached lately: an answer showing an earlier request's has it redacted. */
  readonly #recentSignatures = new RecentSignatures();
  readonly #requests: VerboseLogger;
  readonly #metrics: CloudApiMetrics;

  constructor(options: HttpBrokerOptions) {
    this.#options = options;
    this.#requests = (options.logger ?? silentLogger).v(4);
    this.#metrics = options.metrics ?? noopCloudApiMetrics;
    // A credential whose host no allowed request can match is never attached: say so at load and after each reload.
    options.credentials.warnUnreachable(options.allowList);
    options.credentials.onChange(() => options.credentials.warnUnreachable(options.allowList));
  }

  // Our HTTP/1.1 pool (net/http1), as the kube client's: one request at a time it takes less CPU than undici, which
  // took less than node:http. Redirects are not followed there (#follow checks each hop against the allow-list), and
  // the timeouts are the broker's own. A login entry's own CA makes a pool of its own for its hosts.
  #pool(url: URL): Http1Pool {
    const ca = this.#options.credentials.caFor(url);
    const key = ca === undefined ? url.origin : `${url.origin}\0${ca}`;
    let pool = this.#pools.get(key);
    if (!pool) {
      const tls = { ...withExtraCa(this.#options.tls, ca) };
      pool = new Http1Pool(url.origin, { connections: MAX_CONNECTIONS_PER_ORIGIN, tls });
      this.#pools.set(key, pool);
    }
    return pool;
  }

  /**
   * Serves one ccm_http request (JSON in, JSON answer out) for a caller on the main thread (tests, the smoke test),
   * through the same conversion a plugin's worker makes (http-json.ts) and handleBytes. A plugin's ccm_http never
   * comes here: its worker sends frames. Never rejects.
   */
  async handle(requestBytes: Uint8Array, call: AbortSignal): Promise<Uint8Array> {
    const frame = frameOfJsonRequest(requestBytes);
    if (!(frame instanceof Uint8Array)) return jsonError(frame.code, frame.message);
    return jsonOfAnswerFrame(await this.handleBytes(frame, call));
  }

  /**
   * Serves one ccm_http_bytes request (ABI 1.3): a frame in (`http-frame.ts`: JSON head, raw body), a frame out (JSON
   * status and headers, the response body as it came). `call` aborts at the call's deadline. Never rejects.
   */
  async handleBytes(requestBytes: Uint8Array, call: AbortSignal): Promise<Uint8Array> {
    const started = performance.now();
    let head: RequestHead | undefined;
    try {
      const parsed = parseRequestFrame(requestBytes);
      head = parsed.head;
      this.#options.onPluginRequest?.(head.method.toUpperCase(), head.url);
      const response = await this.#exchange(head, parsed.body.byteLength === 0 ? undefined : parsed.body, call);
      if (this.#requests.enabled) logPluginRequest(this.#requests, head, started, { status: response.status });
      return buildFrame(`{"status":${response.status},"headers":${JSON.stringify(response.headers)}}`, response.chunks);
    } catch (err) {
      const { code, message } = brokerError(err);
      if (this.#requests.enabled) logPluginRequest(this.#requests, head, started, { error: code });
      return errorFrame(code, message);
    }
  }

  /**
   * A GET the host makes itself under the plugin's network policy: the same allow-list, redirect checks, credentials
   * and redaction as the plugin's requests, never seen by the plugin (the conformance kit's backend probe).
   * Rejects with the reason the request could not be made.
   */
  async hostGet(url: string, timeoutMs: number): Promise<HostGetAnswer> {
    const head: RequestHead = { method: 'GET', url, headers: { accept: 'application/json' }, timeoutMs };
    try {
      const response = await this.#exchange(head, undefined, new AbortController().signal);
      return { status: response.status, body: bodyText(response.chunks) };
    } catch (err) {
      const { code, message } = brokerError(err);
      throw new Error(`${code}: ${message}`, { cause: err });
    }
  }

  /** Makes the request, following redirects within the allow-list, within its own timeout and the call's. */
  async #exchange(request: RequestHead, body: Uint8Array | undefined, call: AbortSignal): Promise<RawResponse> {
    const { maxTimeoutMs, defaultTimeoutMs } = this.#options;
    const timeoutMs = Math.min(request.timeoutMs > 0 ? request.timeoutMs : defaultTimeoutMs, maxTimeoutMs);
    // One controller and one timer per request (AbortSignal.timeout + AbortSignal.any cost more per request).
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    const timer = setTimeout(abort, timeoutMs);
    call.addEventListener('abort', abort, { once: true });
    if (call.aborted) abort();
    try {
      return await this.#follow(request, body, controller.signal);
    } catch (err) {
      if (!controller.signal.aborted || (err instanceof BrokerError && err.code !== 'Network')) throw err;
      const limit = call.aborted ? "the call's deadline" : `${timeoutMs} ms`;
      throw new BrokerError('Timeout', `${request.method} ${request.url.slice(0, 200)} did not finish within ${limit}`);
    } finally {
      clearTimeout(timer);
      call.removeEventListener('abort', abort);
    }
  }

  async #follow(request: RequestHead, firstBody: Uint8Array | undefined, signal: AbortSignal): Promise<RawResponse> {
    const url = this.#checkUrl(request.url, 'request to');
    // Every secret attached on the way: a redirect could carry one to the next hop, which may echo it.
    const attached: Attached = { secrets: [], requestSecrets: [] };
    try {
      return await this.#hops(request, url, firstBody, signal, attached);
    } catch (err) {
      // A message may quote the answer: an echoing server could put an attached secret there.
      throw isEmpty(attached) ? err : redactedError(err, this.#redactor(attached));
    }
  }

  #redactor(attached: Attached): SecretRedactor {
    return new SecretRedactor(attached.secrets, attached.requestSecrets, this.#recentSignatures);
  }

  async #hops(
    request: RequestHead,
    firstUrl: URL,
    firstBody: Uint8Array | undefined,
    signal: AbortSignal,
    attached: Attached,
  ): Promise<RawResponse> {
    const { maxRedirects } = this.#options;
    let url = firstUrl;
    let method = request.method.toUpperCase();
    let body = firstBody;
    for (let hop = 0; ; hop++) {
      const response = await this.#send(method, url, request.headers, body, signal, attached);
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.status) || location === undefined) {
        return isEmpty(attached) ? response : redacted(url, response, this.#redactor(attached));
      }
      if (hop >= maxRedirects)
        throw new BrokerError('Network', `more than ${maxRedirects} redirects from ${request.url}`);
      url = this.#checkUrl(new URL(location, url).href, `redirect from ${url.host} to`);
      // As browsers do: 303, and 301/302 after a POST, continue as a GET without a body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
      }
    }
  }

  // Synchronous unless the credential signs (an await per request costs CPU on the common path).
  #authorize(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
  ): AuthorizedRequest | Promise<AuthorizedRequest> | undefined {
    let authorized: AuthorizedRequest | Promise<AuthorizedRequest> | undefined;
    try {
      authorized = this.#options.credentials.authorize({ method, url, headers, ...(body ? { body } : {}) });
    } catch (err) {
      throw err instanceof CredentialRefusal ? new BrokerError('Forbidden', err.message) : err;
    }
    if (!(authorized instanceof Promise)) return authorized;
    return authorized.catch((err: unknown) => {
      if (err instanceof SigV4Error) throw new BrokerError('Network', err.message);
      throw err instanceof CredentialRefusal ? new BrokerError('Forbidden', err.message) : err;
    });
  }

  /** The connections to `url`'s origin and the requests waiting for one (tests, metrics); undefined before any. */
  connectionStats(url: string): ReturnType<Http1Pool['stats']> | undefined {
    return this.#pools.get(new URL(url).origin)?.stats();
  }

  close(): void {
    for (const pool of this.#pools.values()) pool.destroy();
    this.#pools.clear();
  }

  #checkUrl(text: string, what: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new BrokerError('Network', `invalid URL '${text.slice(0, 200)}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new BrokerError('Forbidden', `${what} ${url.protocol}// is not allowed (only http and https)`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new BrokerError('Forbidden', `${what} ${url.host}: credentials in URLs are not allowed`);
    }
    if (!this.#options.allowList.allows(url)) {
      throw new BrokerError(
        'Forbidden',
        `${what} ${url.host} is not allowed: the plugin may reach ${this.#options.allowList}`,
      );
    }
    return url;
  }

  async #send(
    method: string,
    url: URL,
    pluginHeaders: Record<string, string>,
    body: Uint8Array | undefined,
    signal: AbortSignal,
    attached: Attached,
  ): Promise<RawResponse> {
    const outgoing: Outgoing = { method, url, headers: requestHeaders(method, url, pluginHeaders), body };
    const fence = this.#fence(method, url, outgoing.headers, body, signal);
    try {
      // Brokered credentials win over whatever the plugin set, and are chosen per hop (never carried across hosts).
      // An AWS key signs the request as it is sent: nothing may change it after this. A login may be under way.
      const authorizing = this.#authorize(method, url, outgoing.headers, body);
      const authorized = authorizing instanceof Promise ? await untilAborted(authorizing, signal) : authorizing;
      const response = await this.#transmit(outgoing, authorized, signal, fence, attached);
      // A login's session the cloud refused (revoked, or ended early: a 401, or a vSphere NotAuthenticated fault) is
      // renewed and the request sent once more; a second refusal is the plugin's answer, as is the first when the
      // keeper renews no session.
      if (authorized?.renew === undefined || !(authorized.refused ?? refusedByStatus)(response)) return response;
      const renewed = await untilAborted(authorized.renew(), signal);
      if (renewed === undefined) return response;
      this.#metrics.retried(url.host, 'session_renewed');
      return await this.#transmit(outgoing, renewed, signal, fence, attached);
    } catch (err) {
      throw networkError(url, err, !isEmpty(attached));
    } finally {
      fence?.release();
    }
  }

  /** Sends the request with its credential's headers (or signature), recording the secrets attached. */
  async #transmit(
    { method, url, headers, body }: Outgoing,
    authorized: AuthorizedRequest | undefined,
    signal: AbortSignal,
    fence: LeaseFence | undefined,
    attached: Attached,
  ): Promise<RawResponse> {
    let search = url.search;
    let sent = headers;
    if (authorized !== undefined) {
      sent = authorized.headers;
      search = authorized.search ?? search;
      attached.secrets.push(...authorized.secrets);
      if (authorized.requestSecrets) attached.requestSecrets.push(...authorized.requestSecrets);
      if (authorized.signature) this.#recentSignatures.add(authorized.signature);
    }
    if (fence?.expiredError) throw fence.expiredError;
    if (signal.aborted) throw new BrokerError('Network', 'aborted');
    const maxBytes = this.#options.maxResponseBytes;
    const started = performance.now();
    const elapsed = (): number => (performance.now() - started) / 1000;
    const exchange = this.#pool(url).exchange(
      {
        method,
        path: url.pathname + search,
        headers: sent,
        ...(body !== undefined ? { body } : {}),
        headersTimeoutMs: 0,
        bodyTimeoutMs: 0,
      },
      {
        signal: fence?.signal ?? signal,
        onAbort: () => fence?.expiredError ?? new BrokerError('Network', 'aborted'),
        maxBytes,
        // Aborting closes the connection: the rest of the body is never read.
        tooLarge: () => new BrokerError('TooLarge', `response from ${url.host} is larger than ${maxBytes} bytes`),
        ...(fence !== undefined ? { beforeWrite: fence.beforeWrite } : {}),
      },
    );
    const response = await exchange.catch((err: unknown) => {
      this.#metrics.request(method, url.host, undefined, elapsed());
      throw err;
    });
    const answer = { status: response.statusCode, headers: flattenHeaders(response.headers), chunks: response.chunks };
    this.#metrics.request(method, url.host, answer.status, elapsed(), answer.headers['retry-after']);
    return answer;
  }

  /**
   * Names the replica on the request, and, for a request that may change something (request-effect.ts), puts up the
   * lease fence: refused now unless the lease is fresh, and again at the wire (lease-fence.ts).
   */
  #fence(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
    signal: AbortSignal,
  ): LeaseFence | undefined {
    const replica = this.#options.replica;
    if (replica === undefined) return undefined;
    headers[REPLICA_IDENTITY_HEADER] = replica.identity;
    const postReads = method === 'POST' ? this.#options.credentials.postReadsFor(url) : undefined;
    const why = mutationReason({ method, url, headers, body }, postReads);
    return why === undefined ? undefined : new LeaseFence(replica, `${method} ${url.host}`, why, signal);
  }
}
