// KubeClient against the real apiserver: the client-side limiter holds a measured rate, metrics count what was
// sent, patches carry the right Content-Type, and apiserver failures parse into {code, reason, message}.
import { CoreV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { apiErrorInfo } from '../../../host/src/kube/client/errors.ts';
import { patchOptions, typedApi } from '../../../host/src/kube/client/typed-api.ts';
import { REQUEST_CONNECTIONS } from '../../../host/src/kube/client/apiserver-transport.ts';
import { adminKubeConfig, kubeConfigFor, uniqueName } from '../../../lab/controlplane/index.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { HttpMethod } from '../../../host/src/kube/client/http-method.ts';

describe('KubeClient (real apiserver)', () => {
  const info = inject('controlPlane');
  const kc = adminKubeConfig(info);
  const nodeName = uniqueName('client-node');
  const admin = kc.makeApiClient(CoreV1Api);

  afterAll(async () => {
    await admin.deleteNode({ name: nodeName }).catch(() => undefined);
  });

  it('holds the configured rate: 5 qps with burst 3 spreads 13 requests over ~2 s', async () => {
    const registry = new Registry();
    const client = new KubeClient(kc, { qps: 5, burst: 3, registry });
    const core = typedApi(client, CoreV1Api);
    const started = performance.now();
    const finished: number[] = [];
    await Promise.all(
      Array.from({ length: 13 }, (_, i) =>
        (i % 2 ? core.readNamespace({ name: 'default' }) : client.request({ path: '/api/v1/namespaces/default' })).then(
          () => finished.push(performance.now() - started),
        ),
      ),
    );
    finished.sort((a, b) => a - b);
    // 3 at once, then one per 200 ms: the 13th may start at 2.0 s.
    expect(finished[2]).toBeLessThan(1_000);
    expect(finished[12]).toBeGreaterThanOrEqual(1_950);
    expect(finished[12]).toBeLessThan(4_000);
    // The 10 limited requests leave 200 ms apart; completion times add only network jitter.
    expect((finished[12] ?? 0) - (finished[3] ?? 0)).toBeGreaterThanOrEqual(1_600);
    const host = new URL(info.server).host;
    const requests = await registry.getSingleMetric('rest_client_requests_total')?.get();
    expect(requests?.values).toEqual([{ value: 13, labels: { code: '200', method: 'GET', host } }]);
  });

  it('merge-patches through a typed client with patchOptions, and parses a real 409 and 404', async () => {
    const client = new KubeClient(kc);
    const core = typedApi(client, CoreV1Api);
    const created = await core.createNode({ body: { metadata: { name: nodeName } } });
    const patched = await core.patchNode(
      { name: nodeName, body: { metadata: { labels: { merged: 'yes' } } } },
      patchOptions('merge'),
    );
    expect(patched.metadata?.labels?.merged).toBe('yes');
    const raw = await client.patch<{ metadata: { labels: Record<string, string> } }>(
      `/api/v1/nodes/${nodeName}`,
      { metadata: { labels: { raw: 'yes' } } },
      'strategic-merge',
    );
    expect(raw.metadata.labels).toMatchObject({ merged: 'yes', raw: 'yes' });

    const stale = await core
      .replaceNode({ name: nodeName, body: { ...created, metadata: { ...created.metadata, labels: { stale: 'x' } } } })
      .catch((e: unknown) => e);
    expect(apiErrorInfo(stale)).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(apiErrorInfo(stale).message).toContain('the object has been modified');

    const missing = await client.request({ path: '/api/v1/nodes/does-not-exist' }).catch((e: unknown) => e);
    expect(apiErrorInfo(missing)).toEqual({
      code: 404,
      reason: 'NotFound',
      message: 'nodes "does-not-exist" not found',
    });
    const invalid = await client
      .request({ method: 'POST', path: '/api/v1/nodes', body: { metadata: { name: 'Not_A_Valid_Name' } } })
      .catch((e: unknown) => e);
    expect(apiErrorInfo(invalid)).toMatchObject({ code: 422, reason: 'Invalid' });
  });
});

describe('KubeClient connections', () => {
  const info = inject('controlPlane');

  /** A TCP proxy in front of the apiserver, and an admin client that connects through it. */
  async function proxiedClient(): Promise<{ proxy: TcpProxy; client: KubeClient }> {
    const target = new URL(info.server);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port));
    // The apiserver's certificate is valid for 127.0.0.1, which the proxy also listens on.
    const kc = kubeConfigFor(
      { server: `https://127.0.0.1:${proxy.port}`, caPem: info.caPem },
      'admin',
      info.adminToken,
    );
    return { proxy, client: new KubeClient(kc, { qps: 1000, burst: 1000 }) };
  }

  it('reuses TLS connections instead of opening one per request', async () => {
    const { proxy, client } = await proxiedClient();
    try {
      for (let i = 0; i < 30; i++) await client.request({ path: '/api/v1/namespaces/default' });
      await Promise.all(Array.from({ length: 20 }, () => client.request({ path: '/version' })));
      // One connection for the sequential requests; the concurrent burst may open a few more, never one each.
      expect(proxy.connections).toBeGreaterThanOrEqual(1);
      expect(proxy.connections).toBeLessThanOrEqual(REQUEST_CONNECTIONS);
    } finally {
      await proxy.close();
    }
  });

  it('goes on after its keep-alive connections are reset while idle, and reports a reset mid-request', async () => {
    const { proxy, client } = await proxiedClient();
    try {
      await Promise.all(Array.from({ length: 4 }, () => client.request({ path: '/version' })));
      // The idle connections die (an apiserver restart, a load balancer's idle timeout): the next requests of every
      // kind open new ones instead of failing on a dead socket.
      proxy.resetAll();
      await new Promise((r) => setTimeout(r, 50));
      expect(await client.request<{ major: string }>({ path: '/version' })).toHaveProperty('major');
      await client.request({
        method: HttpMethod.PATCH,
        path: '/api/v1/namespaces/default',
        body: { metadata: { annotations: { 'wasm-ccm.test/reset': 'after' } } },
        contentType: 'application/merge-patch+json',
      });
      // A watch cut mid-stream ends its reader with an error, not silence.
      const stop = new AbortController();
      const events = await client.watch('/api/v1/namespaces', { timeoutSeconds: 60 }, stop.signal);
      const drained = (async () => {
        for await (const _event of events) {
          // the initial ADDED events, then nothing until the reset
        }
      })();
      await new Promise((r) => setTimeout(r, 200));
      proxy.resetAll();
      await expect(drained).rejects.toThrow(/closed|reset|ECONNRESET/i);
      stop.abort();
    } finally {
      await proxy.close();
    }
  });

  it('gives watches connections of their own: more watches than request connections do not hold up requests', async () => {
    const client = new KubeClient(adminKubeConfig(info), { qps: 1000, burst: 1000 });
    const stop = new AbortController();
    try {
      const watches = await Promise.all(
        Array.from({ length: REQUEST_CONNECTIONS + 2 }, () =>
          client.watch('/api/v1/namespaces', { timeoutSeconds: 60 }, stop.signal),
        ),
      );
      expect(watches).toHaveLength(REQUEST_CONNECTIONS + 2);
      const started = Date.now();
      await Promise.all(Array.from({ length: 5 }, () => client.request({ path: '/version', timeoutMs: 5_000 })));
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      stop.abort();
    }
  });
});
