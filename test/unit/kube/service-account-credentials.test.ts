// The token source of --use-service-account-credentials: the ServiceAccount created when missing, one TokenRequest
// per token lifetime (asked again with a fifth of it left, or after a 401), and no client certificate of the CCM's.
import { describe, expect, it } from 'vitest';
import type { ApiserverCredentials } from '../../../host/src/kube/client/credentials.ts';
import { KubeApiError } from '../../../host/src/kube/client/errors.ts';
import {
  serviceAccountCredentials,
  type TokenMinter,
} from '../../../host/src/kube/client/service-account-credentials.ts';

const root: ApiserverCredentials = {
  server: 'https://apiserver:6443',
  authHeaders: async () => ({ authorization: 'Bearer root' }),
  transport: async () => ({ tls: { ca: 'CA', cert: 'ROOT-CERT', key: 'ROOT-KEY', rejectUnauthorized: true } }),
};

class FakeMinter implements TokenMinter {
  calls: string[] = [];
  exists = false;
  issued = 0;
  now = 0;
  async request<T>(o: { method?: string; path: string; body?: unknown }): Promise<T> {
    this.calls.push(`${o.method ?? 'GET'} ${o.path}`);
    if (o.path.endsWith('/token')) {
      this.issued++;
      const expirationTimestamp = new Date(this.now + 3_600_000).toISOString();
      return { status: { token: `t${this.issued}`, expirationTimestamp } } as T;
    }
    if ((o.method ?? 'GET') === 'GET' && !this.exists) throw KubeApiError.fromResponse(404, '{}', 'GET');
    this.exists = true;
    return {} as T;
  }
}

describe('serviceAccountCredentials', () => {
  it('creates the ServiceAccount when missing, then reuses the token until a fifth of its life is left', async () => {
    const minter = new FakeMinter();
    const creds = serviceAccountCredentials(root, minter, 'kube-system', 'node-controller', () => minter.now);
    expect(await creds.authHeaders()).toEqual({ authorization: 'Bearer t1' });
    expect(minter.calls).toEqual([
      'GET /api/v1/namespaces/kube-system/serviceaccounts/node-controller',
      'POST /api/v1/namespaces/kube-system/serviceaccounts',
      'POST /api/v1/namespaces/kube-system/serviceaccounts/node-controller/token',
    ]);
    minter.now = 2_879_000; // just before 80% of an hour
    expect(await creds.authHeaders()).toEqual({ authorization: 'Bearer t1' });
    minter.now = 2_880_000;
    expect(await creds.authHeaders()).toEqual({ authorization: 'Bearer t2' });
    creds.rejected?.();
    expect(await creds.authHeaders()).toEqual({ authorization: 'Bearer t3' });
    expect(
      minter.calls.filter((c) => c.startsWith('POST /api/v1/namespaces/kube-system/serviceaccounts/node')),
    ).toHaveLength(3);
  });

  it("asks once for concurrent requests, and keeps the CA but not the CCM's client certificate", async () => {
    const minter = new FakeMinter();
    minter.exists = true;
    const creds = serviceAccountCredentials(root, minter, 'kube-system', 'route-controller', () => minter.now);
    await Promise.all([creds.authHeaders(), creds.authHeaders(), creds.authHeaders()]);
    expect(minter.issued).toBe(1);
    expect(await creds.transport()).toEqual({ tls: { ca: 'CA', rejectUnauthorized: true } });
  });

  it("measures the token's life on its own clock, and refuses a client-node transport", async () => {
    const minter = new FakeMinter();
    minter.exists = true;
    // The apiserver's clock runs two hours ahead: its expiry would already be past on ours.
    const skewed: TokenMinter = {
      request: async <T>(o: { method?: string; path: string; body?: unknown }) => {
        const answer = (await minter.request<{ status: { token: string } }>(o)) as { status?: object };
        if (!o.path.endsWith('/token')) return answer as T;
        return {
          status: { ...answer.status, expirationTimestamp: new Date(minter.now - 3_600_000).toISOString() },
        } as T;
      },
    };
    const creds = serviceAccountCredentials(root, skewed, 'kube-system', 'node-controller', () => minter.now);
    await creds.authHeaders();
    minter.now = 60_000;
    await creds.authHeaders();
    expect(minter.issued).toBe(1);
    const proxied = serviceAccountCredentials(
      { ...root, transport: async () => ({ dispatcher: {} as never }) },
      minter,
      'kube-system',
      'node-controller',
    );
    await expect(proxied.transport()).rejects.toThrow(/handled by @kubernetes\/client-node/);
  });
});
