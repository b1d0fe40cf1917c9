// The CCM's one door to the apiserver. Every request -- generated typed clients, our raw JSON requests and watch
// connections -- goes through one transport that (1) waits on a client-side token bucket (client-go's
// --kube-api-qps / --kube-api-burst, default 20 / 30) and (2) records rest_client_* metrics. client-node 2.0.1
// lets a Configuration carry its own HttpLibrary (`httpApi`), which is where this transport plugs in; its
// makeApiClient builds a Configuration without that hook, so use KubeClient.api() instead.
import {
  type ApiConstructor,
  type ApiType,
  createConfiguration,
  type HttpLibrary,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  type KubeConfig,
  RequestContext,
  type ResponseContext,
  ServerConfiguration,
  setHeaderMiddleware,
  wrapHttpLibrary,
} from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { type Clock, realClock } from '../clock.ts';
import { TokenBucket } from '../token-bucket.ts';
import { KubeApiError } from './errors.ts';
import { PATCH_CONTENT_TYPE, type PatchType } from './patch.ts';
import { type RestMetrics, restMetrics } from './rest-metrics.ts';
import { readWatchEvents, type WatchEvent } from './watch.ts';

export interface KubeClientOptions {
  /** Sustained requests per second to the apiserver (upstream --kube-api-qps, default 20). */
  qps?: number;
  /** Requests allowed in a burst above qps (upstream --kube-api-burst, default 30). */
  burst?: number;
  registry?: Registry;
  clock?: Clock;
  userAgent?: string;
  /** Per-request timeout for non-watch requests (default 60 s). */
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  method?: HttpMethod;
  /** Absolute API path, e.g. /api/v1/nodes or /apis/coordination.k8s.io/v1/namespaces/x/leases/y. */
  path: string;
  query?: Query;
  /** Serialized as JSON. */
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export const DEFAULT_QPS = 20;
export const DEFAULT_BURST = 30;
const DEFAULT_TIMEOUT_MS = 60_000;
const CONNECTION_POOL_MAX_AGE_MS = 5 * 60_000;

export class KubeClient {
  readonly kubeConfig: KubeConfig;
  readonly server: string;
  /** The rate-limited, instrumented transport; pass it as `httpApi` if you build a Configuration yourself. */
  readonly httpApi: HttpLibrary;
  readonly limiter: TokenBucket;
  private readonly host: string;
  private readonly metrics: RestMetrics;
  private readonly clock: Clock;
  private readonly inner = new IsomorphicFetchHttpLibrary();
  private readonly userAgent: string;
  private readonly timeoutMs: number;
  private pool: { dispatcher: NonNullable<ReturnType<RequestContext['getDispatcher']>>; createdAt: number } | undefined;

  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster?.server) throw new Error('KubeClient: the kubeconfig has no current cluster with a server');
    this.kubeConfig = kubeConfig;
    this.server = cluster.server.replace(/\/+$/, '');
    this.host = new URL(this.server).host;
    this.clock = options.clock ?? realClock;
    this.limiter = new TokenBucket(options.qps ?? DEFAULT_QPS, options.burst ?? DEFAULT_BURST, this.clock);
    this.metrics = restMetrics(options.registry);
    this.userAgent = options.userAgent ?? 'wasm-ccm';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.httpApi = wrapHttpLibrary({ send: (ctx) => this.send(ctx) });
  }

  /** A generated client (CoreV1Api, CoordinationV1Api, ...) whose requests go through this client's transport. */
  api<T extends ApiType>(apiClass: ApiConstructor<T>): T {
    return new apiClass(
      createConfiguration({
        baseServer: new ServerConfiguration(this.server, {}),
        authMethods: { default: this.kubeConfig },
        httpApi: this.httpApi,
        middleware: [setHeaderMiddleware('User-Agent', this.userAgent)],
      }),
    );
  }

  /** A JSON request; resolves to the parsed response body, rejects with KubeApiError on any non-2xx status. */
  async request<T>(options: RequestOptions): Promise<T> {
    const method = options.method ?? HttpMethod.GET;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const ctx = await this.context(method, options.path, options.query, signal);
    if (options.body !== undefined) {
      ctx.setHeaderParam('Content-Type', options.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(options.body));
    }
    const response = await this.send(ctx);
    const text = await response.body.text();
    if (response.httpStatusCode >= 300) {
      throw KubeApiError.fromResponse(response.httpStatusCode, text, `${method} ${options.path}`);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
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
    const ctx = await this.context(HttpMethod.GET, path, { ...query, watch: true }, signal);
    const response = await this.send(ctx);
    if (response.httpStatusCode !== 200) {
      throw KubeApiError.fromResponse(response.httpStatusCode, await response.body.text(), `watch ${path}`);
    }
    const stream = response.body.stream();
    if (!stream) throw new Error(`watch ${path}: response has no body`);
    return readWatchEvents(stream);
  }

  private async context(method: HttpMethod, path: string, query: Query | undefined, signal: AbortSignal) {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const ctx = new RequestContext(url.toString(), method);
    await this.kubeConfig.applySecurityAuthentication(ctx);
    this.reuseConnections(ctx);
    ctx.setHeaderParam('Accept', 'application/json');
    ctx.setHeaderParam('User-Agent', this.userAgent);
    ctx.setSignal(signal);
    return ctx;
  }

  /**
   * client-node builds a new connection pool (undici Agent) for every request, so every request paid a TLS
   * handshake (the largest CPU cost of node initialization at 200 QPS). Keep one pool and hand it to every request;
   * replace it every few minutes so client certificates rotated on disk are picked up. Auth headers are still set
   * per request, so rotated tokens work at once.
   */
  private reuseConnections(ctx: RequestContext): void {
    const fresh = ctx.getDispatcher();
    if (!fresh) return;
    const now = this.clock.now();
    if (!this.pool || now - this.pool.createdAt > CONNECTION_POOL_MAX_AGE_MS) {
      const old = this.pool?.dispatcher;
      this.pool = { dispatcher: fresh, createdAt: now };
      // close() lets requests already using the old pool finish.
      void old?.close().catch(() => undefined);
      return;
    }
    if (fresh !== this.pool.dispatcher) void fresh.close().catch(() => undefined);
    ctx.setDispatcher(this.pool.dispatcher);
  }

  private async send(ctx: RequestContext): Promise<ResponseContext> {
    const method = ctx.getHttpMethod();
    const waited = await this.limiter.wait(ctx.getSignal());
    this.metrics.rateLimited(method, this.host, waited / 1000);
    ctx.getSignal()?.throwIfAborted();
    const started = this.clock.now();
    let code = '<error>';
    try {
      const response = await this.inner.send(ctx).toPromise();
      code = String(response.httpStatusCode);
      return response;
    } finally {
      this.metrics.request(method, this.host, code, (this.clock.now() - started) / 1000);
    }
  }
}
