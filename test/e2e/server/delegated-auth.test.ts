// /metrics behind delegated auth against a REAL apiserver: TokenReview authenticates a ServiceAccount token,
// SubjectAccessReview checks its RBAC for the non-resource path.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { DelegatedAuth } from '../../../host/src/server/auth.ts';
import { kubeReviewClient } from '../../../host/src/server/kube-reviews.ts';
import { buildServer } from '../../../host/src/server/server.ts';
import { selfSignedCertificate } from '../../../host/src/server/tls.ts';
import { mintIdentity, adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';

describe('delegated authentication and authorization', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  let app: Awaited<ReturnType<typeof buildServer>>;
  let scraperToken = '';
  let otherToken = '';

  beforeAll(async () => {
    const scraper = await mintIdentity(info, admin, {
      name: uniqueName('scraper'),
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    });
    const other = await mintIdentity(info, admin, {
      name: uniqueName('other'),
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
    });
    scraperToken = scraper.token;
    otherToken = other.token;
    app = await buildServer({
      bindAddress: '127.0.0.1',
      port: 0,
      certificate: selfSignedCertificate(),
      registry: new Registry(),
      health: { healthz: [], readyz: [], livez: [] },
      auth: new DelegatedAuth({
        reviews: kubeReviewClient(new KubeClient(admin, { qps: 200, burst: 400 })),
        alwaysAllowPaths: ['/healthz'],
      }),
    });
  });
  afterAll(() => app?.close());

  it('serves /metrics to a ServiceAccount whose role allows get on /metrics', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${scraperToken}` },
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses (403) a ServiceAccount without that permission', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${otherToken}` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('cannot get path "/metrics"');
  });

  it('refuses (401) a token the apiserver does not know, and anonymous requests', async () => {
    const forged = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer forged.token' },
    });
    expect(forged.statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
