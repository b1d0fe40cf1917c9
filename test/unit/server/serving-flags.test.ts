// The serving flags of upstream's secure serving and delegated auth, on a real HTTPS server: TLS version, cipher
// suites and curves as Go names, SO_REUSEPORT, and how long review answers are kept.
import { connect, type TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { tlsServerOptions } from '../../../host/src/options/tls-flags.ts';
import { DelegatedAuth, type ReviewClient, type UserInfo } from '../../../host/src/server/auth.ts';
import { startServer } from '../../../host/src/server/server.ts';
import { selfSignedCertificate } from '../../../host/src/server/tls.ts';

const certificate = selfSignedCertificate();
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(options: { tls?: ReturnType<typeof tlsServerOptions>; reusePort?: boolean; port?: number }) {
  const started = await startServer({
    bindAddress: '127.0.0.1',
    port: options.port ?? 0,
    certificate,
    registry: new Registry(),
    health: { healthz: [], readyz: [], livez: [] },
    tls: options.tls,
    reusePort: options.reusePort,
  });
  closers.push(() => started.app.close());
  return Number(new URL(started.url).port);
}

function handshake(port: number, client: { maxVersion?: 'TLSv1.2' | 'TLSv1.3'; ecdhCurve?: string }) {
  return new Promise<{ protocol: string | null; cipher: string }>((resolve, reject) => {
    const socket: TLSSocket = connect({ host: '127.0.0.1', port, ca: certificate.cert, ...client }, () => {
      const info = {
        protocol: socket.getProtocol(),
        cipher: socket.getCipher().name,
      };
      socket.end();
      resolve(info);
    });
    socket.on('error', reject);
  });
}

describe('--tls-min-version, --tls-cipher-suites, --tls-curve-preferences', () => {
  it('refuse a TLS 1.2 client when the minimum is VersionTLS13', async () => {
    const port = await serve({
      tls: tlsServerOptions({ cipherSuites: [], minVersion: 'VersionTLS13', curvePreferences: [] }),
    });
    await expect(handshake(port, { maxVersion: 'TLSv1.2' })).rejects.toThrow();
    expect((await handshake(port, {})).protocol).toBe('TLSv1.3');
  });

  it('negotiate only the listed TLS 1.2 suite and curve', async () => {
    const tls = tlsServerOptions({
      cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
      minVersion: '',
      curvePreferences: ['24'],
    });
    const port = await serve({ tls });
    const info = await handshake(port, { maxVersion: 'TLSv1.2' });
    expect(info).toMatchObject({ protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-AES256-GCM-SHA384' });
    await expect(handshake(port, { maxVersion: 'TLSv1.2', ecdhCurve: 'X25519' })).rejects.toThrow();
  });
});

describe('--permit-port-sharing', () => {
  it('lets a second server listen on the same port, which it cannot without', async () => {
    const port = await serve({ reusePort: true });
    await expect(serve({ reusePort: true, port })).resolves.toBe(port);
    await expect(serve({ port })).rejects.toThrow(/EADDRINUSE/);
  });
});

class CountingReviews implements ReviewClient {
  sar = 0;
  async tokenReview(token: string): Promise<UserInfo | undefined> {
    return { username: token, groups: [] };
  }
  async subjectAccessReview(user: UserInfo) {
    this.sar++;
    return { allowed: user.username === 'allowed', reason: '' };
  }
}

describe('review cache TTLs', () => {
  it('keep allowed and denied answers each for their own time', async () => {
    let now = 0;
    const reviews = new CountingReviews();
    const auth = new DelegatedAuth({
      reviews,
      alwaysAllowPaths: [],
      authorizedTtlMs: 60_000,
      unauthorizedTtlMs: 1_000,
      now: () => now,
    });
    await auth.decide('/metrics', 'get', 'Bearer allowed');
    await auth.decide('/metrics', 'get', 'Bearer denied');
    expect(reviews.sar).toBe(2);
    now = 5_000; // past the denied answer's time, within the allowed one's
    expect((await auth.decide('/metrics', 'get', 'Bearer allowed')).status).toBe(200);
    expect((await auth.decide('/metrics', 'get', 'Bearer denied')).status).toBe(403);
    expect(reviews.sar).toBe(3);
  });
});
