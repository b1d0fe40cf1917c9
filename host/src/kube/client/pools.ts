// Connection pools to the apiserver over HTTP/1.1. undici speaks HTTP/2 to a TLS apiserver when it can, and opening
// a node:http2 stream costs about twice the CPU of writing an HTTP/1.1 request (the profile of a 1,000-Service burst
// had http2 stream setup as the kube client's largest single cost). Requests share a few keep-alive connections;
// every watch holds a connection of its own, in a separate pool, so long watches never starve requests.
import { Agent, type Dispatcher } from 'undici';
import type { TlsSettings } from './credentials.ts';

/** Connections requests may open at once; more wait for one (client-go's HTTP/1.1 transport keeps 25 idle). */
export const REQUEST_CONNECTIONS = 10;

export interface ApiserverPools {
  requests: Dispatcher;
  watches: Dispatcher;
}

/** HTTP/1.1 pools with the credentials' TLS settings (CA, client certificate, skip-verify, server name). */
export function http1Pools(tls: TlsSettings): ApiserverPools {
  return {
    requests: new Agent({ allowH2: false, connections: REQUEST_CONNECTIONS, connect: tls }),
    watches: new Agent({ allowH2: false, connect: tls }),
  };
}
