// Where the CCM's credentials come from, in upstream's order: an explicit --kubeconfig (with --master overriding
// its server), else the pod's service account (in-cluster), else $KUBECONFIG. Never client-node's
// loadFromDefault, which quietly falls back to http://localhost:8080 and turns a missing config into
// "connection refused" much later: here a missing or broken config is an immediate, explicit error.
import { existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface LoadKubeConfigOptions {
  /** --kubeconfig */
  kubeconfig?: string;
  /** --master: the apiserver URL, overriding the kubeconfig's server. */
  master?: string;
  env?: Record<string, string | undefined>;
  /** Prefix for the service account files (tests); client-node reads <root>/var/run/secrets/... */
  inClusterRoot?: string;
}

export type KubeConfigSource = 'kubeconfig-flag' | 'in-cluster' | 'KUBECONFIG' | 'master-only';

export interface LoadedKubeConfig {
  kubeConfig: KubeConfig;
  source: KubeConfigSource;
  server: string;
}

export class KubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeConfigError';
  }
}

export function loadKubeConfig(options: LoadKubeConfigOptions = {}): LoadedKubeConfig {
  const env = options.env ?? process.env;
  const kc = new KubeConfig();
  let source: KubeConfigSource;
  if (options.kubeconfig) {
    loadFile(kc, options.kubeconfig, '--kubeconfig');
    source = 'kubeconfig-flag';
  } else if (options.master) {
    // --master alone: a server without credentials (an insecure local apiserver), as client-go allows.
    // client-node refuses plain http unless TLS verification is off, and there is no TLS to verify then.
    const plainHttp = options.master.startsWith('http://');
    kc.loadFromOptions({
      clusters: [{ name: 'master', server: options.master, skipTLSVerify: plainHttp }],
      users: [{ name: 'anonymous' }],
      contexts: [{ name: 'master', cluster: 'master', user: 'anonymous' }],
      currentContext: 'master',
    });
    source = 'master-only';
  } else if (inClusterAvailable(env, options.inClusterRoot ?? '')) {
    loadInCluster(kc, env, options.inClusterRoot ?? '');
    source = 'in-cluster';
  } else if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter((f) => f !== '');
    const present = files.filter((f) => existsSync(f));
    if (present.length === 0) throw new KubeConfigError(`KUBECONFIG names no existing file: ${env.KUBECONFIG}`);
    loadFile(kc, present[0] as string, 'KUBECONFIG');
    for (const file of present.slice(1)) {
      const more = new KubeConfig();
      loadFile(more, file, 'KUBECONFIG');
      kc.mergeConfig(more, true);
    }
    source = 'KUBECONFIG';
  } else {
    throw new KubeConfigError(
      'no Kubernetes API configuration: pass --kubeconfig (or --master), run in a pod with a service account ' +
        '(KUBERNETES_SERVICE_HOST/PORT and a token), or set KUBECONFIG',
    );
  }
  if (options.master && source !== 'master-only') overrideServer(kc, options.master);
  return { kubeConfig: kc, source, server: validate(kc, source) };
}

function loadFile(kc: KubeConfig, path: string, what: string): void {
  if (!existsSync(path)) throw new KubeConfigError(`${what}: ${path} does not exist`);
  try {
    kc.loadFromFile(path);
  } catch (err) {
    throw new KubeConfigError(`${what}: cannot load ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function inClusterAvailable(env: Record<string, string | undefined>, root: string): boolean {
  return Boolean(
    env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && existsSync(join(root, SERVICE_ACCOUNT_DIR, 'token')),
  );
}

// client-node's loadFromCluster reads process.env itself; this does the same from the env we were given. The token
// goes through the tokenFile auth provider, which re-reads the file, so projected token rotation keeps working.
function loadInCluster(kc: KubeConfig, env: Record<string, string | undefined>, root: string): void {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT ?? ''}`;
  kc.loadFromClusterAndUser(
    { name: 'inCluster', server, caFile: join(root, SERVICE_ACCOUNT_DIR, 'ca.crt'), skipTLSVerify: false },
    {
      name: 'inClusterUser',
      authProvider: { name: 'tokenFile', config: { tokenFile: join(root, SERVICE_ACCOUNT_DIR, 'token') } },
    },
  );
}

function overrideServer(kc: KubeConfig, master: string): void {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeConfigError('--master given but the kubeconfig has no current cluster');
  // Cluster objects are read-only views; replace the cluster entry with one pointing at the new server.
  kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? { ...c, server: master } : c));
}

function validate(kc: KubeConfig, source: KubeConfigSource): string {
  const context = kc.getCurrentContext();
  if (!context) throw new KubeConfigError(`${source}: no current context`);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeConfigError(`${source}: current context "${context}" names no known cluster`);
  if (!cluster.server) throw new KubeConfigError(`${source}: cluster "${cluster.name}" has no server`);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new KubeConfigError(`${source}: cluster "${cluster.name}" server is not a URL: ${cluster.server}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new KubeConfigError(`${source}: cluster "${cluster.name}" server must be http(s): ${cluster.server}`);
  }
  return cluster.server;
}
