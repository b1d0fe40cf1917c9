// The transport to the apiserver: how requests, watches and typed clients reach it, over HTTP/1.1 (net/http1).
// undici speaks HTTP/2 to a TLS apiserver when it can, and opening a node:http2 stream costs about twice the CPU of
// writing an HTTP/1.1 request (the profile of a 1,000-Service burst had http2 stream setup as the kube client's
// largest single cost).
//   exchanges: the JSON requests, on a keep-alive pool (less CPU per request than undici: bench/host/http1-client.ts);
//   watches:   a connection each, outside the pool, so long watches never hold a request's place;
//   typed:     undici for client-node's generated typed clients (tests and tools), loaded only if used: the CCM
//              itself never loads undici (megabytes of resident memory with its llhttp Wasm parser).
import type { Dispatcher } from 'undici';
import type { CollectedResponse } from '../../net/collect.ts';
import { dispatchCollect } from '../../net/collect.ts';
import { type ExchangeOptions, Http1Pool } from '../../net/http1/pool.ts';
import type { PoolRequest } from '../../net/http1/request.ts';
import type { StreamedResponse } from '../../net/http1/stream.ts';
import type { TlsSettings } from './credentials.ts';

/** Connections requests may open at once; more wait for one (client-go's HTTP/1.1 transport keeps 25 idle). */
export const REQUEST_CONNECTIONS = 10;

export interface ApiserverTransport {
  /** One request, its answer collected whole; `beforeWrite` is asked right before its bytes are written. */
  exchange(request: PoolRequest, options: ExchangeOptions): Promise<CollectedResponse>;
  /** One request whose answer is read as it arrives (a watch). */
  stream(request: PoolRequest, signal?: AbortSignal): Promise<StreamedResponse>;
  /** The dispatcher typed clients send on. */
  typed(): Promise<Dispatcher>;
  /** Lets what already uses the connections finish, then closes them. */
  close(): void;
}

/** HTTP/1.1 to `origin` with the credentials' TLS settings (CA, client certificate, skip-verify, server name). */
export function http1Transport(origin: string, tls: TlsSettings): ApiserverTransport {
  const pool = new Http1Pool(origin, { connections: REQUEST_CONNECTIONS, tls });
  let typed: Promise<Dispatcher> | undefined;
  return {
    exchange: (request, options) => pool.exchange(request, options),
    stream: (request, signal) => pool.stream(request, signal),
    typed: () =>
      (typed ??= import('undici').then(
        ({ Agent }) => new Agent({ allowH2: false, connections: REQUEST_CONNECTIONS, connect: tls }),
      )),
    close: () => {
      void pool.close();
      void typed?.then((d) => d.close()).catch(() => undefined);
    },
  };
}

/** Every kind of traffic through one dispatcher the credentials built (client-node's proxying one, say). */
export function dispatcherTransport(origin: string, dispatcher: Dispatcher): ApiserverTransport {
  const options = (request: PoolRequest) => ({
    origin,
    path: request.path,
    method: request.method as Dispatcher.HttpMethod,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.headersTimeoutMs !== undefined ? { headersTimeout: request.headersTimeoutMs } : {}),
    ...(request.bodyTimeoutMs !== undefined ? { bodyTimeout: request.bodyTimeoutMs } : {}),
  });
  return {
    // undici writes when it has a connection, out of our sight: the check is made before the request is handed over.
    exchange: (request, { beforeWrite, ...collectOptions }) => {
      const refusal = beforeWrite?.();
      if (refusal !== undefined) return Promise.reject(refusal);
      return dispatchCollect(dispatcher, options(request), collectOptions);
    },
    stream: async (request, signal) => {
      const response = await dispatcher.request({ ...options(request), ...(signal ? { signal } : {}) });
      return { statusCode: response.statusCode, headers: flatHeaders(response.headers), body: response.body };
    },
    typed: () => Promise.resolve(dispatcher),
    close: () => void dispatcher.close().catch(() => undefined),
  };
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}
