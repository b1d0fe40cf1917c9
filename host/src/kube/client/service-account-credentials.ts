// --use-service-account-credentials: a controller talks to the apiserver as its own ServiceAccount in kube-system, as
// upstream's DynamicControllerClientBuilder arranges. The CCM's own identity gets (or creates) the ServiceAccount
// and asks the TokenRequest API for a one-hour token, asked again when a fifth of its lifetime is left or after the
// apiserver refused it. The connections carry no client certificate of the CCM's own (upstream's anonymous client
// config): the apiserver tries client certificates before bearer tokens, so one would win over the token.
import type { ApiserverCredentials } from './credentials.ts';
import { apiErrorInfo, isNotFound } from './errors.ts';
import { HttpMethod } from './http-method.ts';

/** What the credentials need of the CCM's own client (KubeClient). */
export interface TokenMinter {
  request<T>(options: { method?: HttpMethod; path: string; body?: unknown }): Promise<T>;
}

const EXPIRATION_SECONDS = 3600;
const LEEWAY_PERCENT = 20;

interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

export function serviceAccountCredentials(
  root: ApiserverCredentials,
  minter: TokenMinter,
  namespace: string,
  name: string,
  now: () => number = Date.now,
): ApiserverCredentials {
  const accountPath = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts`;
  let token: { value: string; renewAt: number } | undefined;
  let minting: Promise<string> | undefined;

  async function ensureServiceAccount(): Promise<void> {
    try {
      await minter.request({ path: `${accountPath}/${encodeURIComponent(name)}` });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await minter
        .request({
          method: HttpMethod.POST,
          path: accountPath,
          body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
        })
        .catch((createErr: unknown) => {
          // Another replica created it meanwhile.
          if (apiErrorInfo(createErr).code !== 409) throw createErr;
        });
    }
  }

  async function mint(): Promise<string> {
    await ensureServiceAccount();
    const issuedAt = now();
    const answer = await minter.request<TokenRequestStatus>({
      method: HttpMethod.POST,
      path: `${accountPath}/${encodeURIComponent(name)}/token`,
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: EXPIRATION_SECONDS },
      },
    });
    const value = answer.status?.token;
    if (!value) throw new Error(`the TokenRequest for ${namespace}/${name} answered no token`);
    const expires = Date.parse(answer.status?.expirationTimestamp ?? '');
    const lifetime = (Number.isFinite(expires) ? expires : issuedAt + EXPIRATION_SECONDS * 1000) - issuedAt;
    token = { value, renewAt: issuedAt + (lifetime * (100 - LEEWAY_PERCENT)) / 100 };
    return value;
  }

  return {
    server: root.server,
    async authHeaders() {
      let value = token && now() < token.renewAt ? token.value : undefined;
      if (value === undefined) {
        minting ??= mint().finally(() => (minting = undefined));
        value = await minting;
      }
      return { authorization: `Bearer ${value}` };
    },
    async transport() {
      const transport = await root.transport();
      if (!('tls' in transport)) return transport;
      const { cert: _cert, key: _key, ...anonymous } = transport.tls;
      return { tls: anonymous };
    },
    rejected() {
      token = undefined;
    },
  };
}
