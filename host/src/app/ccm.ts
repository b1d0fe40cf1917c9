// The cloud-controller-manager process, in upstream's order, one phase after another: clients (and the wait for the
// apiserver), plugin, server, then leader election, which while leading runs the informers and the controllers
// (running-ccm.ts). Losing the lease exits non-zero; SIGTERM stops taking work, lets in-flight calls finish,
// releases the Lease and exits 0 within 30 s.
import type { KubeConfig } from '@kubernetes/client-node';
import { defaultIdentity } from '../kube/leaderelection/elector.ts';
import type { ApiserverCredentials } from '../kube/client/credentials.ts';
import type { Logger, Verbosity } from '../log/logger.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import type { ReplicaGuard } from '../plugin/index.ts';
import { type CCMClients, createClients, waitForAPIServer } from './clients.ts';
import { startLeaderElection } from './leader-election.ts';
import { type StartedPlugins, startPlugins } from './plugins.ts';
import { type CCMServer, RunningCCM } from './running-ccm.ts';

export { StartupError } from './startup-error.ts';

/** The process's logger and the -v it writes at, which /debug/flags/v changes. */
export interface CCMLogging {
  logger: Logger;
  verbosity: Verbosity;
}

export interface CCMHandle {
  /** Resolves with the process exit code once the CCM has stopped. */
  done: Promise<number>;
  /** Starts a graceful shutdown (SIGTERM). */
  shutdown(reason: string): void;
  url: string | undefined;
}

/**
 * `startSignal` is the SIGTERM that may arrive while starting: it must end the start (exit 0) rather than wait
 * out up to two minutes of apiserver retries and a plugin load first.
 */
export async function startCCM(
  options: CCMOptions,
  kubeConfig: ApiserverCredentials | KubeConfig,
  { logger, verbosity }: CCMLogging,
  startSignal?: AbortSignal,
): Promise<CCMHandle> {
  const clients = createClients(options, kubeConfig, logger);
  // Aborted by a signal during start-up, and by shutdown(): it ends the start, the controllers and the informers.
  const stopping = new AbortController();
  const abortStart = (): void => stopping.abort();
  if (startSignal?.aborted) abortStart();
  startSignal?.addEventListener('abort', abortStart, { once: true });
  await waitForAPIServer(clients.client, logger, stopping.signal);
  // Chosen before the plugins load: the broker tells the cloud which replica makes each request, and asks (when a
  // request is made, so after the elector exists) whether this replica's lease is fresh enough to change the cloud.
  const identity = defaultIdentity();
  const running: { ccm?: RunningCCM } = {};
  const replica: ReplicaGuard = {
    identity,
    leaseFreshForMs: () => (options.flags['leader-elect'] ? (running.ccm?.elector?.leaseFreshForMs() ?? 0) : Infinity),
  };
  const started = await startPlugins(options, clients, replica, logger, stopping.signal);
  const ccm = new RunningCCM({ options, clients, started, logger, stopping });
  running.ccm = ccm;
  ccm.server = await serve(options, clients, started, ccm, { logger, verbosity });
  if (options.flags['leader-elect']) startLeaderElection(options, clients, ccm, identity, logger, stopping.signal);
  else void ccm.lead(stopping.signal);
  // From here on a signal reaches us through shutdown().
  startSignal?.removeEventListener('abort', abortStart);
  return { done: ccm.done, shutdown: (reason) => ccm.shutdown(reason), url: ccm.server?.url };
}

/** The server phase: health, metrics and /debug over HTTPS, unless --secure-port=0. */
async function serve(
  options: CCMOptions,
  { client, registry }: CCMClients,
  { plugins }: StartedPlugins,
  ccm: RunningCCM,
  { logger, verbosity }: CCMLogging,
): Promise<CCMServer | undefined> {
  if (options.flags['secure-port'] === 0) return undefined;
  // The server (fastify and its routes) is imported only to serve: with --secure-port=0 it is never loaded.
  const serving = await import('./serving.ts');
  return serving.startCCMServer({
    options,
    credentials: client.credentials,
    registry,
    logger,
    verbosity,
    leaderCheck: () => ccm.elector?.check(),
    controllers: () => ccm.controllers,
    plugins,
  });
}
