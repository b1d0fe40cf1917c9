import { request } from 'node:https';
import { Registry, Counter } from 'prom-client';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelegatedAuth, type ReviewClient, type UserInfo } from '../../../host/src/server/auth.ts';
import { SliMetrics } from '../../../host/src/server/slis.ts';
import { buildServer, startServer } from '../../../host/src/server/server.ts';
import { selfSignedCertificate, type ServingCertificate } from '../../../host/src/server/tls.ts';

class FakeReviews implements ReviewClient {
  tokenCalls = 0;
  sarCalls = 0;
  fail = false;
  async tokenReview(token: string): Promise<UserInfo | undefined> {
    this.tokenCalls++;
    if (this.fail) throw new Error('apiserver down');
    if (token === 'scraper' || token === 'nobody') return { username: token, groups: ['system:authenticated'] };
    return undefined;
  }
  async subjectAccessReview(user: UserInfo, path: string, verb: string) {
    this.sarCalls++;
    const allowed =
      user.username === 'scraper' && verb === 'get' && (path === '/metrics' || path.startsWith('/debug/'));
    return { allowed, reason: allowed ? 'rbac' : '' };
  }
}

let certificate: ServingCertificate;
beforeAll(() => {
  certificate = selfSignedCertificate();
});

async function server(options: { failing?: boolean; auth?: DelegatedAuth; slis?: SliMetrics } = {}) {
  const registry = new Registry();
  new Counter({ name: 'wasm_ccm_test_total', help: 'a test counter', registers: [registry] }).inc(3);
  return buildServer({
    bindAddress: '127.0.0.1',
    port: 0,
    certificate,
    registry,
    health: {
      healthz: [
        {
          name: 'leaderElection',
          check: () => (options.failing ? Promise.reject(new Error('lease not renewed for 25s')) : undefined),
        },
        { name: 'cloud-node', check: () => undefined },
      ],
      readyz: [{ name: 'informer-sync', check: () => undefined }],
      livez: [],
    },
    debug: { plugins: () => [{ name: 'devcloud', version: '1.0.0' }] },
    auth: options.auth,
    slis: options.slis,
    configz: () => ({ 'cloudcontrollermanager.config.k8s.io': { kind: 'CloudControllerManagerConfiguration' } }),
  });
}

describe('health endpoints', () => {
  it('answer ok when every check passes', async () => {
    const app = await server();
    for (const path of ['/healthz', '/readyz', '/livez', '/healthz/leaderElection', '/livez/ping']) {
      const res = await app.inject({ method: 'GET', url: path });
      expect(res.statusCode, path).toBe(200);
      expect(res.body).toBe('ok');
    }
    const verbose = await app.inject({ method: 'GET', url: '/healthz?verbose' });
    // As upstream's controller manager: no ping check on /healthz.
    expect(verbose.body).toBe('[+]leaderElection ok\n[+]cloud-node ok\nhealthz check passed\n');
    expect((await app.inject({ method: 'GET', url: '/healthz/ping' })).statusCode).toBe(404);
  });

  it('list the failing check with its reason and answer 500', async () => {
    const app = await server({ failing: true });
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(500);
    expect(res.body).toContain('[-]leaderElection failed: lease not renewed for 25s');
    expect(res.body).toContain('[+]cloud-node ok');
    expect(res.body).toContain('healthz check failed');
    expect((await app.inject({ method: 'GET', url: '/healthz/leaderElection' })).statusCode).toBe(500);
    expect((await app.inject({ method: 'GET', url: '/healthz/cloud-node' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/healthz?exclude=leaderElection' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
  });

  it('answer 404 for an unknown check', async () => {
    const app = await server();
    expect((await app.inject({ method: 'GET', url: '/healthz/nope' })).statusCode).toBe(404);
  });

  it('record each check of a /healthz request in /metrics/slis, reset by a DELETE', async () => {
    const app = await server({ failing: true, slis: new SliMetrics() });
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/healthz?exclude=leaderElection' });
    const slis = (await app.inject({ method: 'GET', url: '/metrics/slis' })).body;
    expect(slis).toContain(
      '# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.',
    );
    expect(slis).toContain('kubernetes_healthcheck{name="leaderElection",type="healthz"} 0');
    expect(slis).toContain('kubernetes_healthcheck{name="cloud-node",type="healthz"} 1');
    expect(slis).toContain('kubernetes_healthchecks_total{name="leaderElection",type="healthz",status="error"} 1');
    expect(slis).toContain('kubernetes_healthchecks_total{name="cloud-node",type="healthz",status="success"} 2');
    expect(slis).toMatch(/^process_start_time_seconds \d+/m);
    expect((await app.inject({ method: 'DELETE', url: '/metrics/slis' })).body).toBe('metrics reset\n');
    expect((await app.inject({ method: 'GET', url: '/metrics/slis' })).body).not.toContain('kubernetes_healthcheck{');
  });

  it('serve /configz as JSON', async () => {
    const res = await (await server()).inject({ method: 'GET', url: '/configz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      'cloudcontrollermanager.config.k8s.io': { kind: 'CloudControllerManagerConfiguration' },
    });
  });
});

describe('metrics and debug behind delegated auth', () => {
  const reviews = new FakeReviews();
  let now = 0;
  const auth = new DelegatedAuth({
    reviews,
    alwaysAllowPaths: ['/healthz', '/readyz', '/livez', '/healthz/*'],
    now: () => now,
  });

  it('refuses anonymous requests (401) but serves health to anyone', async () => {
    const app = await server({ auth });
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/debug/plugins' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/healthz/cloud-node' })).statusCode).toBe(200);
  });

  it('refuses a token the apiserver does not accept (401) and a user without access (403)', async () => {
    const app = await server({ auth });
    const bad = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer forged' } });
    expect(bad.statusCode).toBe(401);
    const nobody = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nobody' } });
    expect(nobody.statusCode).toBe(403);
    expect(nobody.body).toContain('user "nobody" cannot get path "/metrics"');
  });

  it('serves metrics and debug views to an authorized user, caching reviews for 10 s', async () => {
    const app = await server({ auth });
    reviews.tokenCalls = 0;
    reviews.sarCalls = 0;
    const headers = { authorization: 'Bearer scraper' };
    const metrics = await app.inject({ method: 'GET', url: '/metrics', headers });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('wasm_ccm_test_total 3');
    await app.inject({ method: 'GET', url: '/metrics', headers });
    expect([reviews.tokenCalls, reviews.sarCalls]).toEqual([1, 1]);
    now += 10_001;
    await app.inject({ method: 'GET', url: '/metrics', headers });
    expect([reviews.tokenCalls, reviews.sarCalls]).toEqual([2, 2]);
    const debug = await app.inject({ method: 'GET', url: '/debug/plugins', headers });
    expect(debug.json()).toEqual([{ name: 'devcloud', version: '1.0.0' }]);
  });

  it('fails closed (503) when the apiserver cannot be asked', async () => {
    const failing = new FakeReviews();
    failing.fail = true;
    const app = await server({ auth: new DelegatedAuth({ reviews: failing, alwaysAllowPaths: [] }) });
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scraper' } });
    expect(res.statusCode).toBe(503);
  });
});

describe('TLS', () => {
  let url = '';
  let close: () => Promise<void> = async () => undefined;
  afterAll(() => close());

  it('serves HTTPS with a self-signed certificate valid for 127.0.0.1', async () => {
    const registry = new Registry();
    const started = await startServer({
      bindAddress: '127.0.0.1',
      port: 0,
      certificate,
      registry,
      health: { healthz: [], readyz: [], livez: [] },
    });
    url = started.url;
    close = () => started.app.close();
    const body = await new Promise<string>((resolve, reject) => {
      request(`${url}/livez`, { ca: certificate.cert }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    expect(body).toBe('ok');
  });

  it('makes a well-formed self-signed certificate', () => {
    const x509 = new X509Certificate(certificate.cert);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkIP('::1')).toBe('::1');
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkHost('example.com')).toBeUndefined();
    expect(x509.subject).toMatch(/^CN=wasm-ccm@\d+$/);
    expect(new Date(x509.validTo).getTime()).toBeGreaterThan(Date.now() + 300 * 24 * 3600_000);
    const withIP = new X509Certificate(selfSignedCertificate(['10.1.2.3', 'ccm.example']).cert);
    expect(withIP.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(withIP.checkHost('ccm.example')).toBe('ccm.example');
  });
});
