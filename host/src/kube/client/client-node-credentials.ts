// ApiserverCredentials from a client-node KubeConfig: for what our own loader does not do (exec credential plugins,
// auth providers, proxies) and for callers that already hold a KubeConfig (tests, tools). client-node is imported
// only when such credentials are first used, so a CCM that needs none of this never loads it.
import type { RequestOptions as HttpsRequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Dispatcher } from 'undici';
import type { ApiserverCredentials, TlsSettings, Transport } from './credentials.ts';

/** True for a client-node KubeConfig (or anything shaped like one), false for ApiserverCredentials. */
export function isKubeConfig(value: KubeConfig | ApiserverCredentials): value is KubeConfig {
  return typeof (value as Partial<KubeConfig>).applySecurityAuthentication === 'function';
}

/** Applies the kubeconfig's user to a request context; returns its headers and the dispatcher client-node built. */
async function authenticate(kc: KubeConfig, server: string) {
  const { RequestContext, HttpMethod } = await import('@kubernetes/client-node');
  const ctx = new RequestContext(`${server}/`, HttpMethod.GET);
  await kc.applySecurityAuthentication(ctx);
  return { headers: ctx.getHeaders(), dispatcher: ctx.getDispatcher() as Dispatcher | undefined };
}

export function kubeConfigCredentials(kc: KubeConfig): ApiserverCredentials {
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new Error('the kubeconfig has no current cluster with a server');
  const server = cluster.server;
  return {
    server,
    async authHeaders() {
      const { headers, dispatcher } = await authenticate(kc, server);
      void dispatcher?.close().catch(() => undefined);
      return headers;
    },
    async transport(): Promise<Transport> {
      if (cluster.proxyUrl) {
        // Only client-node builds the proxying dispatcher.
        const { dispatcher } = await authenticate(kc, server);
        if (dispatcher) return { dispatcher };
      }
      const https: HttpsRequestOptions = {};
      await kc.applyToHTTPSOptions(https);
      const tls: TlsSettings = {};
      if (https.ca) tls.ca = https.ca as string | Buffer;
      if (https.cert) tls.cert = https.cert as string | Buffer;
      if (https.key) tls.key = https.key as string | Buffer;
      if (typeof https.rejectUnauthorized === 'boolean') tls.rejectUnauthorized = https.rejectUnauthorized;
      if (typeof https.servername === 'string') tls.servername = https.servername;
      return { tls };
    },
  };
}
