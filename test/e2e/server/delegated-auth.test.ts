// /metrics and /debug/flags/v behind delegated auth against a REAL apiserver: TokenReview authenticates a
// ServiceAccount token, SubjectAccessReview checks its RBAC for the non-resource path and verb.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { Verbosity } from '../../../host/src/log/logger.ts';
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
  let operatorToken = '';
  const verbosity = new Verbosity(0);

  beforeAll(async () => {
    const scraper = await mintIdentity(info, admin, {
      name: uniqueName('scraper'),
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    });
    const other = await mintIdentity(info, admin, {
      name: uniqueName('other'),
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
    });
    const operator = await mintIdentity(info, admin, {
      name: uniqueName('operator'),
      rules: [{ nonResourceURLs: ['/debug/flags/v'], verbs: ['get', 'put'] }],
    });
    scraperToken = scraper.token;
    otherToken = other.token;
    operatorToken = operator.token;
    app = await buildServer({
      bindAddress: '127.0.0.1',
      port: 0,
      certificate: selfSignedCertificate(),
      registry: new Registry(),
      health: { healthz: [], readyz: [], livez: [] },
      verbosity,
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

  describe('/debug/flags/v', () => {
    const call = (method: 'GET' | 'PUT', token: string | undefined, payload?: string) =>
      app.inject({
        method,
        url: '/debug/flags/v',
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          // What curl -X PUT -d 4 sends.
          ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(payload !== undefined ? { payload } : {}),
      });

    it('sets -v on PUT and reads it on GET, for a user whose role allows put and get on the path', async () => {
      const put = await call('PUT', operatorToken, '4');
      expect(put.statusCode).toBe(200);
      expect(put.body).toBe('successfully set klog.logging.verbosity to 4\n');
      expect(verbosity.level).toBe(4);
      const get = await call('GET', operatorToken);
      expect([get.statusCode, get.body]).toEqual([200, '4\n']);
      await call('PUT', operatorToken, '0\n');
      expect(verbosity.level).toBe(0);
    });

    it('refuses a level that is not a non-negative integer (400), naming it, and keeps the level', async () => {
      const bad = await call('PUT', operatorToken, 'loud');
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('invalid verbosity "loud"');
      expect(verbosity.level).toBe(0);
    });

    it('refuses (403) a user without put on the path, and (401) anonymous callers, leaving the level as it was', async () => {
      const denied = await call('PUT', otherToken, '9');
      expect(denied.statusCode).toBe(403);
      expect(denied.body).toContain('cannot put path "/debug/flags/v"');
      expect((await call('GET', scraperToken)).statusCode).toBe(403);
      expect((await call('PUT', undefined, '9')).statusCode).toBe(401);
      expect(verbosity.level).toBe(0);
    });
  });
});
