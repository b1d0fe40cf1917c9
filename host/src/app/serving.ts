// The CCM's HTTPS endpoints: /healthz (leaderElection, one check per controller, by upstream's names), /readyz (the
// provider is loaded), /livez, /metrics, /metrics/slis, /configz, /debug/plugins and /debug/flags/v, behind delegated authentication
// unless the operator binds to loopback and turns it off.
import type { Registry } from 'prom-client';
import { KubeClient } from '../kube/client/client.ts';
import type { ApiserverCredentials } from '../kube/client/credentials.ts';
import { loadKubeConfig } from '../kube/client/kubeconfig.ts';
import type { Logger, Verbosity } from '../log/logger.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import { tlsServerOptions } from '../options/tls-flags.ts';
import type { PluginSet } from '../plugin/index.ts';
import { DelegatedAuth } from '../server/auth.ts';
import type { HealthCheck } from '../server/health.ts';
import { kubeReviewClient } from '../server/kube-reviews.ts';
import { startServer } from '../server/server.ts';
import { SliMetrics } from '../server/slis.ts';
import { loadServingCertificate, selfSignedCertificate } from '../server/tls.ts';
import { upstreamControllerName } from '../options/controllers.ts';
import { configz } from './configz.ts';
import type { RunningController } from './controllers.ts';

export interface CCMServerOptions {
  options: CCMOptions;
  credentials: ApiserverCredentials;
  registry: Registry;
  logger: Logger;
  /** -v, which /debug/flags/v reads and sets (served with --profiling, as upstream). */
  verbosity: Verbosity;
  /** undefined when healthy, else the reason (LeaderElector.check). */
  leaderCheck: () => string | undefined;
  controllers: () => readonly RunningController[];
  plugins: PluginSet;
}

/** Calls made to the plugins serving `provider` (every module it ran, across swaps). */
async function pluginCalls(registry: Registry, provider: string): Promise<number> {
  const metric = registry.getSingleMetric('wasm_ccm_plugin_calls_total');
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => v.labels.provider === provider).reduce((sum, v) => sum + v.value, 0);
}

/** /healthz: leader election and one check per enabled controller; /readyz: the provider; /livez: leader election. */
function healthChecks(serving: CCMServerOptions): {
  healthz: HealthCheck[];
  readyz: HealthCheck[];
  livez: HealthCheck[];
} {
  const leaderElection: HealthCheck = {
    name: 'leaderElection',
    check: () => {
      const problem = serving.leaderCheck();
      if (problem) throw new Error(problem);
    },
  };
  // One check per enabled controller, named as upstream names them; a controller not (yet) running is healthy.
  const controllerChecks: HealthCheck[] = [...serving.options.controllers].map((name) => ({
    name: upstreamControllerName(name),
    check: () =>
      serving
        .controllers()
        .find((c) => c.name === name)
        ?.healthy(),
  }));
  const providerCheck: HealthCheck = {
    name: 'provider',
    check: () => {
      const problem = serving.plugins.ready();
      if (problem) throw new Error(problem);
    },
  };
  return { healthz: [leaderElection, ...controllerChecks], readyz: [providerCheck], livez: [leaderElection] };
}

/** --delegated-auth: TokenReviews and SubjectAccessReviews on the apiserver; undefined when turned off. */
function delegatedAuth(serving: CCMServerOptions): DelegatedAuth | undefined {
  const flags = serving.options.flags;
  if (!flags['delegated-auth']) return undefined;
  // Its own clients, with the rate limits upstream's delegating authenticator and authorizer use; each from its own
  // kubeconfig when --authentication-kubeconfig / --authorization-kubeconfig name one.
  const reviewClient = (kubeconfig: string): KubeClient =>
    new KubeClient(kubeconfig === '' ? serving.credentials : loadKubeConfig({ kubeconfig }).credentials, {
      qps: 200,
      burst: 400,
      registry: serving.registry,
      userAgent: 'wasm-ccm/delegated-auth',
      logger: serving.logger,
    });
  return new DelegatedAuth({
    reviews: kubeReviewClient(
      reviewClient(flags['authentication-kubeconfig']),
      reviewClient(flags['authorization-kubeconfig']),
    ),
    alwaysAllowPaths: flags['authorization-always-allow-paths'],
    tokenTtlMs: flags['authentication-token-webhook-cache-ttl'],
    authorizedTtlMs: flags['authorization-webhook-cache-authorized-ttl'],
    unauthorizedTtlMs: flags['authorization-webhook-cache-unauthorized-ttl'],
  });
}

/** /debug/plugins, per provider: the plugin serving now, the last module refused (and why), swaps, shadow results. */
function pluginsDebug(serving: CCMServerOptions): () => Promise<unknown> {
  return async () =>
    Promise.all(
      serving.plugins.status().map(async (status) => ({
        ...status,
        calls: await pluginCalls(serving.registry, status.name),
      })),
    );
}

export async function startCCMServer(
  serving: CCMServerOptions,
): Promise<{ app: { close(): Promise<unknown> }; url: string }> {
  const flags = serving.options.flags;
  const certificate =
    flags['tls-cert-file'] !== ''
      ? loadServingCertificate(flags['tls-cert-file'], flags['tls-private-key-file'])
      : selfSignedCertificate();
  const auth = delegatedAuth(serving);
  const started = await startServer({
    bindAddress: flags['bind-address'],
    port: flags['secure-port'],
    certificate,
    registry: serving.registry,
    health: healthChecks(serving),
    debug: { plugins: pluginsDebug(serving) },
    ...(flags.profiling ? { verbosity: serving.verbosity } : {}),
    auth,
    tls: tlsServerOptions({
      cipherSuites: flags['tls-cipher-suites'],
      minVersion: flags['tls-min-version'],
      curvePreferences: flags['tls-curve-preferences'],
    }),
    reusePort: flags['permit-port-sharing'],
    configz: () => configz(serving.options),
    slis: new SliMetrics(),
  });
  serving.logger.info('serving', {
    url: started.url,
    delegatedAuth: auth !== undefined,
    selfSigned: certificate.selfSigned,
  });
  return started;
}
