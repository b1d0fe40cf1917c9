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
    // The lifetime on our own clock: the server's expiry only shortens it (a skewed clock must not make every
    // request ask for a new token).
    const requested = EXPIRATION_SECONDS * 1000;
    const reported = Date.parse(answer.status?.expirationTimestamp ?? '') - issuedAt;
    const lifetime = reported > 0 ? Math.min(reported, requested) : requested;
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
      // client-node's dispatcher (exec plugins, auth providers, proxies) may carry the CCM's own client certificate,
      // which the apiserver would take over the token: refuse rather than act as the wrong identity.
      if (!('tls' in transport)) {
        throw new Error(
          `--use-service-account-credentials: the kubeconfig's credentials are handled by @kubernetes/client-node ` +
            `(exec plugin, auth provider or proxy), whose connections may authenticate as the CCM itself; ` +
            `${namespace}/${name} cannot be used over them`,
        );
      }
      const { cert: _cert, key: _key, ...anonymous } = transport.tls;
      return { tls: anonymous };
    },
    rejected() {
      token = undefined;
    },
  };
}
