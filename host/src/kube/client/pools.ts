// Connections to the apiserver, over HTTP/1.1. undici speaks HTTP/2 to a TLS apiserver when it can, and opening
// a node:http2 stream costs about twice the CPU of writing an HTTP/1.1 request (the profile of a 1,000-Service burst
// had http2 stream setup as the kube client's largest single cost).
//   exchanges: the JSON requests, on our own keep-alive pool (net/http1/pool.ts, less than two thirds of undici's CPU
//              per request);
//   watches:   an undici pool of their own, so long watches never hold a request's connection (a watch is a
//              stream read for minutes, which undici's streaming body does well);
//   typed:     undici for client-node's generated typed clients (tests and tools), opened only if used.
import { Agent, type Dispatcher } from 'undici';
import type { CollectedResponse, CollectOptions } from '../../net/collect.ts';
import { dispatchCollect } from '../../net/collect.ts';
import { Http1Pool, type PoolRequest } from '../../net/http1/pool.ts';
import type { TlsSettings } from './credentials.ts';

/** Connections requests may open at once; more wait for one (client-go's HTTP/1.1 transport keeps 25 idle). */
export const REQUEST_CONNECTIONS = 10;

/** Sends one request and collects its answer whole. */
export interface Exchanger {
  exchange(request: PoolRequest, options: CollectOptions): Promise<CollectedResponse>;
  close(): Promise<void>;
}

export interface ApiserverPools {
  exchanges: Exchanger;
  watches: Dispatcher;
  typed: Dispatcher;
}

/** HTTP/1.1 pools to `origin` with the credentials' TLS settings (CA, client certificate, skip-verify, server name). */
export function http1Pools(origin: string, tls: TlsSettings): ApiserverPools {
  return {
    exchanges: new Http1Pool(origin, { connections: REQUEST_CONNECTIONS, tls }),
    watches: new Agent({ allowH2: false, connect: tls }),
    typed: new Agent({ allowH2: false, connections: REQUEST_CONNECTIONS, connect: tls }),
  };
}

/** Every kind of traffic through one dispatcher the credentials built (client-node's proxying one, say). */
export function dispatcherPools(origin: string, dispatcher: Dispatcher): ApiserverPools {
  return {
    exchanges: {
      exchange: (request, options) =>
        dispatchCollect(
          dispatcher,
          {
            origin,
            path: request.path,
            method: request.method as Dispatcher.HttpMethod,
            headers: request.headers,
            ...(request.body !== undefined ? { body: request.body } : {}),
            ...(request.headersTimeoutMs !== undefined ? { headersTimeout: request.headersTimeoutMs } : {}),
            ...(request.bodyTimeoutMs !== undefined ? { bodyTimeout: request.bodyTimeoutMs } : {}),
          },
          options,
        ),
      // closePools closes the dispatcher itself, once.
      close: () => Promise.resolve(),
    },
    watches: dispatcher,
    typed: dispatcher,
  };
}

/** Closes the pools, letting what already uses them finish; each shared dispatcher once. */
export function closePools(pools: ApiserverPools): void {
  void pools.exchanges.close().catch(() => undefined);
  for (const d of new Set([pools.watches, pools.typed])) void d.close().catch(() => undefined);
}
