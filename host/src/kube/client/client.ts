// The CCM's one door to the apiserver. Every request -- our JSON requests, watch connections and generated typed
// clients (typed-api.ts) -- (1) waits on one client-side token bucket (client-go's --kube-api-qps /
// --kube-api-burst, default 20 / 30), (2) records rest_client_* metrics and (3) shares one transport, the HTTP/1.1
// connections of apiserver-transport.ts, built from ApiserverCredentials (credentials.ts).
import type { KubeConfig } from '@kubernetes/client-node';
import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { type Clock, realClock, sleep } from '../clock.ts';
import { TokenBucket } from '../token-bucket.ts';
import { isKubeConfig, kubeConfigCredentials } from './client-node-credentials.ts';
import type { ApiserverCredentials } from './credentials.ts';
import { KubeApiError } from './errors.ts';
import { HttpMethod } from './http-method.ts';
import { PATCH_CONTENT_TYPE, type PatchType } from './patch.ts';
import { type ApiserverTransport, dispatcherTransport, http1Transport } from './apiserver-transport.ts';
import { bodyText, type CollectedResponse } from '../../net/collect.ts';
import type { PoolRequest } from '../../net/http1/request.ts';
import { type RestMetrics, restMetrics } from './rest-metrics.ts';
import { type RetrySchedule, withRetryAfter } from './retry-after.ts';
import type { KubeClientOptions, Query, RequestExtra, RequestOptions, Sent } from './request-options.ts';

export type { KubeClientOptions, Query, RequestOptions } from './request-options.ts';
import { readWatchEvents, type WatchEvent } from './watch.ts';
import { serviceAccountCredentials } from './service-account-credentials.ts';
import type { VerboseLogger } from '../../log/logger.ts';

const DEFAULT_QPS = 20;
const DEFAULT_BURST = 30;
const DEFAULT_TIMEOUT_MS = 60_000;
const CONNECTION_POOL_MAX_AGE_MS = 5 * 60_000;
const AUTH_TTL_MS = 10_000;

interface Connection {
  transport: ApiserverTransport;
  /** Headers that authenticate requests (Authorization), from the credentials. */
  headers: Record<string, string>;
  createdAt: number;
  authAt: number;
}

export class KubeClient {
  readonly credentials: ApiserverCredentials;
  readonly server: string;
  readonly limiter: TokenBucket;
  private readonly host: string;
  private readonly metrics: RestMetrics;
  private readonly v6: VerboseLogger | undefined;
  /** Retries asked for by the apiserver (Retry-After), at -v=4 as client-go logs them. */
  private readonly v4: VerboseLogger | undefined;
  private readonly clock: Clock;
  readonly userAgent: string;
  private readonly timeoutMs: number;
  private readonly origin: string;
  /** The server URL's path (a proxy's prefix, say), prepended to every request path. */
  private readonly basePath: string;
  private conn: Connection | undefined;
  private refreshing: Promise<Connection> | undefined;
  private readonly options: KubeClientOptions;
  /** Whose connections and auth headers this client uses: itself, or the client it was made from (forController). */
  private connectionOwner: KubeClient = this;

  /** A client-node KubeConfig is accepted too (its current context); see client-node-credentials.ts. */
  constructor(config: ApiserverCredentials | KubeConfig, options: KubeClientOptions = {}) {
    this.options = options;
    this.credentials = isKubeConfig(config) ? kubeConfigCredentials(config) : config;
    this.server = this.credentials.server.replace(/\/+$/, '');
    const url = new URL(this.server);
    this.host = url.host;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.clock = options.clock ?? realClock;
    this.limiter = new TokenBucket(options.qps ?? DEFAULT_QPS, options.burst ?? DEFAULT_BURST, this.clock);
    this.metrics = restMetrics(options.registry);
    this.v6 = options.logger?.v(6);
    this.v4 = options.logger?.v(4);
    this.userAgent = options.userAgent ?? 'wasm-ccm';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * A client for one controller: its own token bucket (same qps and burst) and user agent, over this client's
   * connections and credentials. Upstream builds a clientset per controller (ClientBuilder.ClientOrDie(name)), each
   * with its own rate limiter, while client-go's transport cache lets them share connections: a burst of one
   * controller's requests does not hold up another's.
   */
  forController(name: string, options: Pick<KubeClientOptions, 'mayRetry'> = {}): KubeClient {
    const client = new KubeClient(this.credentials, {
      ...this.options,
      ...options,
      userAgent: `${this.userAgent}/${name}`,
    });
    client.connectionOwner = this.connectionOwner;
    return client;
  }

  /**
   * A client for one controller that authenticates as the ServiceAccount `name` in `namespace`
   * (--use-service-account-credentials): tokens from the TokenRequest API, asked by this client, on connections of
   * its own; its own token bucket and user agent, as forController gives.
   */
  forServiceAccount(
    name: string,
    namespace = 'kube-system',
    options: Pick<KubeClientOptions, 'mayRetry'> = {},
  ): KubeClient {
    return new KubeClient(serviceAccountCredentials(this.credentials, this, namespace, name), {
      ...this.options,
      ...options,
      userAgent: `${this.userAgent}/${name}`,
    });
  }

  /**
   * A JSON request; resolves to the parsed response body, rejects with KubeApiError on any non-2xx status. An answer
   * that asks to be retried (429 or 5xx with Retry-After) is, as client-go does it (retry-after.ts).
   */
  async request<T>(options: RequestOptions): Promise<T> {
    const method = options.method ?? HttpMethod.GET;
    // The connection pool's own timeouts (one sweep per pool) bound the wait for the head and then each pause in the
    // body: an AbortSignal.timeout per request (plus AbortSignal.any with the caller's) cost more CPU than the rest of
    // our per-request code.
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const ignore = options.ignoreResponse === true;
    const body = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    const response = await withRetryAfter(
      (remainingMs) =>
        this.collect(method, options.path, options.query, options.signal, {
          ...(body !== undefined ? { body, contentType: options.contentType ?? 'application/json' } : {}),
          headersTimeout: remainingMs,
          bodyTimeout: remainingMs,
          // An error answer is still read, for KubeApiError.
          discardBody: ignore,
          beforeWrite: options.beforeWrite,
        }),
      timeoutMs,
      this.retrySchedule(method, options.path, options.signal),
    );
    if (ignore && response.statusCode < 300) return undefined as T;
    const text = bodyText(response.chunks);
    if (response.statusCode >= 300) {
      throw KubeApiError.fromResponse(response.statusCode, text, `${method} ${options.path}`);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Waits on this client's clock, counts each retry and logs it at -v=4 (client-go: "Got a Retry-After ..."). */
  private retrySchedule(method: string, path: string, signal: AbortSignal | undefined): RetrySchedule {
    return {
      now: () => this.clock.now(),
      sleep: async (ms, retry) => {
        if (this.v4?.enabled) {
          const url = this.origin + this.basePath + path;
          this.v4.info('Got a Retry-After response', {
            verb: method,
            url,
            retryAfter: `${ms / 1000}s`,
            attempt: retry,
          });
        }
        // A zero wait sets no timer.
        if (ms > 0) await sleep(this.clock, ms, signal);
        // Aborted meanwhile: no token taken from the rate limiter, nothing sent.
        signal?.throwIfAborted();
      },
      mayRetry: this.options.mayRetry ?? (() => true),
      onRetried: (code) => this.metrics.retry(method, this.host, code),
    };
  }

  /** A patch with the Content-Type its type requires. */
  patch<T>(
    path: string,
    body: unknown,
    type: PatchType,
    options: Omit<RequestOptions, 'path' | 'body'> = {},
  ): Promise<T> {
    return this.request<T>({ ...options, method: HttpMethod.PATCH, path, body, contentType: PATCH_CONTENT_TYPE[type] });
  }

  /**
   * Opens a watch (`?watch=true`) and returns its events. Rejects with KubeApiError if the apiserver refuses it;
   * the returned stream ends when the server closes the watch and throws on transport or decode errors.
   * Aborting `signal` closes the connection.
   */
  async watch(path: string, query: Query, signal: AbortSignal): Promise<AsyncGenerator<WatchEvent>> {
    // No body timeout: a quiet watch is normal, and the informer has its own idle limit.
    const response = await this.exchange(
      HttpMethod.GET,
      signal,
      (conn, sent) => {
        const request = this.poolRequest(
          conn,
          HttpMethod.GET,
          path,
          { ...query, watch: true },
          {
            headersTimeout: this.timeoutMs,
          },
        );
        return conn.transport.stream(this.recorded(sent, request), signal);
      },
      statusCode,
    );
    if (response.statusCode !== 200) {
      throw KubeApiError.fromResponse(response.statusCode, await readText(response.body), `watch ${path}`);
    }
    return readWatchEvents(response.body);
  }

  /**
   * The raw requests' transport: a keep-alive connection of the pool (apiserver-transport.ts), the answer collected
   * whole. client-node's fetch path costs more CPU per request than undici, and undici more than the pool
   * (bench/host/http1-client.ts); at a few hundred requests per second this is the largest CPU cost of node
   * initialization.
   */
  private collect(
    method: HttpMethod,
    path: string,
    query: Query | undefined,
    signal: AbortSignal | undefined,
    extra: RequestExtra & { discardBody: boolean; beforeWrite: (() => Error | undefined) | undefined },
  ): Promise<CollectedResponse> {
    return this.exchange(
      method,
      signal,
      (conn, sent) =>
        conn.transport.exchange(this.recorded(sent, this.poolRequest(conn, method, path, query, extra)), {
          signal,
          discardBody: extra.discardBody,
          ...(extra.beforeWrite !== undefined ? { beforeWrite: extra.beforeWrite } : {}),
        }),
      statusCode,
    );
  }

  /**
   * One request, rate-limited and metered, on the current connection; a 401 makes the next one re-read auth.
   * `statusOf` reads the status from what `send` resolves to (a collected answer, or a stream's head).
   */
  private exchange<R>(
    method: string,
    signal: AbortSignal | undefined,
    send: (conn: Connection, sent: Sent) => Promise<R>,
    statusOf: (response: R) => number,
  ): Promise<R> {
    return this.metered(method, signal, async (sent) => {
      // Taken after the limiter's wait, which can outlast the pool: a pool replaced meanwhile is closed.
      const conn = await this.connection();
      const response = await send(conn, sent);
      const statusCode = statusOf(response);
      if (statusCode === 401) this.authRejected();
      return { response, statusCode };
    });
  }

  /** `request`, its URL noted in `sent`. */
  private recorded(sent: Sent, request: PoolRequest): PoolRequest {
    sent.url = this.origin + request.path;
    return request;
  }

  private poolRequest(
    conn: Connection,
    method: HttpMethod,
    path: string,
    query: Query | undefined,
    extra: RequestExtra,
  ): PoolRequest {
    let search = '';
    if (query) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
      const encoded = params.toString();
      if (encoded !== '') search = `?${encoded}`;
    }
    const headers: Record<string, string> = {
      ...conn.headers,
      accept: 'application/json',
      'user-agent': this.userAgent,
    };
    if (extra.contentType !== undefined) headers['content-type'] = extra.contentType;
    return {
      path: this.basePath + path + search,
      method,
      headers,
      ...(extra.body !== undefined ? { body: extra.body } : {}),
      ...(extra.headersTimeout !== undefined ? { headersTimeoutMs: extra.headersTimeout } : {}),
      ...(extra.bodyTimeout !== undefined ? { bodyTimeoutMs: extra.bodyTimeout } : {}),
    };
  }

  /**
   * Waits on the rate limiter, then runs the request and records its rest_client_* metrics and, at -v=6, the
   * response line.
   */
  private async metered<R>(
    method: string,
    signal: AbortSignal | undefined,
    run: (sent: Sent) => Promise<{ response: R; statusCode: number }>,
  ): Promise<R> {
    const waited = await this.limiter.wait(signal);
    this.metrics.rateLimited(method, this.host, waited / 1000);
    signal?.throwIfAborted();
    const started = this.clock.now();
    const sent: Sent = { url: '' };
    let code = '<error>';
    try {
      const { response, statusCode } = await run(sent);
      code = String(statusCode);
      return response;
    } finally {
      const ms = this.clock.now() - started;
      this.metrics.request(method, this.host, code, ms / 1000);
      if (this.v6?.enabled) this.logResponse(method, sent.url, code, ms);
    }
  }

  /** client-go's round_trippers line at -v=6: `"Response" verb="GET" url="…" status="200 OK" milliseconds=4`. */
  private logResponse(method: string, url: string, code: string, ms: number): void {
    // No answer (a refused connection, a timeout): client-go logs an empty status.
    const status = code === '<error>' ? '' : `${code} ${STATUS_CODES[Number(code)] ?? ''}`.trim();
    this.v6?.info('Response', {
      verb: method,
      url,
      status,
      milliseconds: Math.round(ms),
    });
  }

  /**
   * The pooled connection and the credentials' auth headers, kept rather than derived per request (client-node
   * reads CA, certificate and token files for each one): the headers are re-read every AUTH_TTL_MS (client-go
   * re-reads a token file once a minute) and after a 401, the pool is replaced every CONNECTION_POOL_MAX_AGE_MS so
   * certificates rotated on disk are picked up.
   */
  private async connection(): Promise<Connection> {
    if (this.connectionOwner !== this) return this.connectionOwner.connection();
    const now = this.clock.now();
    const conn = this.conn;
    if (conn && now - conn.authAt < AUTH_TTL_MS && now - conn.createdAt < CONNECTION_POOL_MAX_AGE_MS) return conn;
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The credential was refused; it may have been rotated since it was read: read it again for the next request. */
  private authRejected(): void {
    const conn = this.connectionOwner.conn;
    if (conn) conn.authAt = -Infinity;
    this.connectionOwner.credentials.rejected?.();
  }

  private async refresh(): Promise<Connection> {
    const headers = await this.credentials.authHeaders();
    const now = this.clock.now();
    const old = this.conn;
    const keep = old !== undefined && now - old.createdAt < CONNECTION_POOL_MAX_AGE_MS;
    let transport: ApiserverTransport;
    if (keep) {
      transport = old.transport;
    } else {
      const settings = await this.credentials.transport();
      transport =
        'tls' in settings
          ? http1Transport(this.origin, settings.tls)
          : dispatcherTransport(this.origin, settings.dispatcher);
      // Closing lets requests (and watches) already using the old connections finish.
      if (old) old.transport.close();
    }
    this.conn = {
      transport,
      headers,
      createdAt: keep ? old.createdAt : now,
      authAt: now,
    };
    return this.conn;
  }

  /**
   * For generated typed clients (typed-api.ts): `run` sends to `url` on the current connection's dispatcher with its
   * auth headers, after the rate limiter, with rest_client_* metrics.
   */
  sendTyped<R extends { httpStatusCode: number }>(
    method: string,
    url: string,
    signal: AbortSignal | undefined,
    run: (dispatcher: Dispatcher, headers: Readonly<Record<string, string>>) => Promise<R>,
  ): Promise<R> {
    return this.exchange(
      method,
      signal,
      async (conn, sent) => {
        sent.url = url;
        return run(await conn.transport.typed(), conn.headers);
      },
      (r) => r.httpStatusCode,
    );
  }
}

const statusCode = (response: { statusCode: number }): number => response.statusCode;

async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  return bodyText(chunks);
}
