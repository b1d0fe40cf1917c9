// Connection pools to the apiserver over HTTP/1.1. undici speaks HTTP/2 to a TLS apiserver when it can, and opening
// a node:http2 stream costs about twice the CPU of writing an HTTP/1.1 request (the profile of a 1,000-Service burst
// had http2 stream setup as the kube client's largest single cost). Requests share a few keep-alive connections;
// every watch holds a connection of its own, in a separate pool, so long watches never starve requests.
import type { RequestOptions as HttpsRequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { Agent, type Dispatcher } from 'undici';

/** Connections requests may open at once; more wait for one (client-go's HTTP/1.1 transport keeps 25 idle). */
export const REQUEST_CONNECTIONS = 10;

export interface ApiserverPools {
  requests: Dispatcher;
  watches: Dispatcher;
}

/**
 * HTTP/1.1 pools with the kubeconfig's TLS settings (CA, client certificate, skip-verify, server name); undefined when
 * the cluster is reached through a proxy, whose dispatcher only client-node builds.
 */
export async function http1Pools(kubeConfig: KubeConfig): Promise<ApiserverPools | undefined> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster || cluster.proxyUrl) return undefined;
  const tls: HttpsRequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(tls);
  const connect: Record<string, unknown> = {};
  for (const key of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const) {
    if (tls[key] !== undefined && tls[key] !== null) connect[key] = tls[key];
  }
  return {
    requests: new Agent({ allowH2: false, connections: REQUEST_CONNECTIONS, connect }),
    watches: new Agent({ allowH2: false, connect }),
  };
}
