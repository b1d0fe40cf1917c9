// The cloud-controller-manager process, in upstream's order: wait for the apiserver, initialize the provider,
// serve health and metrics, then (while leading) start informers and controllers. Losing the lease exits
// non-zero; SIGTERM stops taking work, lets in-flight calls finish, releases the Lease and exits 0 within 30 s.
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Provider } from '../cloudprovider/index.ts';
import { KubeClient } from '../kube/client/client.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiserverCredentials } from '../kube/client/credentials.ts';
import { defaultIdentity, LeaderElector } from '../kube/leaderelection/elector.ts';
import { kubeLeaseLock } from '../kube/leaderelection/lease-lock.ts';
import type { Logger } from '../log/logger.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import { PluginSet } from '../plugin/swap/plugin-set.ts';
import {
  buildControllers,
  type ControllerContext,
  eventRecorder,
  routeControllerWanted,
  type RunningController,
} from './controllers.ts';
import { type SharedInformers, sharedInformers } from './informers.ts';
import type { EventRecorder } from '../kube/events/recorder.ts';
import { runningManagedControllers } from './metrics.ts';
import { startStaggered } from './start-staggered.ts';

export const SHUTDOWN_DEADLINE_MS = 30_000;
/** How long a SIGTERM waits for in-flight syncs before giving the Lease back anyway. */
export const IN_FLIGHT_GRACE_MS = 10_000;
/** How long queued events may take to be written at shutdown. */
const EVENT_FLUSH_GRACE_MS = 5_000;

/** Waits for `work` to settle, but at most `ms`; says whether it settled in time. */
async function settledWithin(work: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  if (!work) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface CCMHandle {
  /** Resolves with the process exit code once the CCM has stopped. */
  done: Promise<number>;
  /** Starts a graceful shutdown (SIGTERM). */
  shutdown(reason: string): void;
  url: string | undefined;
}

export class StartupError extends Error {
  override name = 'StartupError';
}

async function waitForAPIServer(client: KubeClient, logger: Logger, signal: AbortSignal): Promise<void> {
  let attempt = 0;
  for (;;) {
    try {
      await client.request({ path: '/version', timeoutMs: 5_000, signal });
      return;
    } catch (err) {
      if (signal.aborted) throw new StartupError('stopped while waiting for the apiserver');
      attempt++;
      if (attempt === 1 || attempt % 10 === 0) {
        logger.warn('waiting for the apiserver', { server: client.server, error: (err as Error).message });
      }
      if (attempt >= 120) throw new StartupError(`the apiserver at ${client.server} did not answer within 2 minutes`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/**
 * `startSignal` is the SIGTERM that may arrive while starting: it must end the start (exit 0) rather than wait
 * out up to two minutes of apiserver retries and a plugin load first.
 */
export async function startCCM(
  options: CCMOptions,
  kubeConfig: ApiserverCredentials | KubeConfig,
  logger: Logger,
  startSignal?: AbortSignal,
): Promise<CCMHandle> {
  const flags = options.flags;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const runningControllers = runningManagedControllers(registry);
  const client = new KubeClient(kubeConfig, {
    qps: flags['kube-api-qps'],
    burst: flags['kube-api-burst'],
    registry,
    userAgent: 'wasm-ccm',
  });
  const { credentials } = client;
  // Aborted by a signal during start-up, and by shutdown(): it ends the start, the controllers and the informers.
  const stopping = new AbortController();
  const abortStart = (): void => stopping.abort();
  if (startSignal?.aborted) abortStart();
  startSignal?.addEventListener('abort', abortStart, { once: true });
  await waitForAPIServer(client, logger, stopping.signal);

  if (options.pluginConfig === undefined) {
    throw new StartupError('--plugin: a provider plugin (.wasm) is required (or --plugin-config)');
  }
  // Warning events about refused modules go on their ConfigMap; flushed with the controllers' at shutdown.
  const pluginEvents = eventRecorder(client, logger, 'wasm-ccm');
  // Chosen before the plugins load: the broker tells the cloud which replica makes each request.
  const identity = defaultIdentity();
  let elector: LeaderElector | undefined;
  let plugins: PluginSet;
  try {
    // Every provider's current module is verified and initialized now; afterwards each is swapped in place
    // whenever its source changes (the controllers hold SwappableProviders and never notice).
    plugins = await PluginSet.start({
      config: options.pluginConfig,
      client,
      cloudProvider: flags['cloud-provider'],
      clusterName: flags['cluster-name'],
      // Read when a request is made (the elector is created after the plugins load): with leader election, only a
      // leader whose lease is fresh changes the cloud.
      replica: { identity, leaseFresh: () => (flags['leader-elect'] ? (elector?.leaseFresh() ?? false) : true) },
      defaultPoolSize: flags['concurrent-node-syncs'] + flags['concurrent-service-syncs'] + 1,
      logger,
      registry,
      events: pluginEvents,
    });
  } catch (err) {
    throw new StartupError((err as Error).message, { cause: err });
  }
  if (stopping.signal.aborted) {
    await plugins.stop();
    throw new StartupError('stopped while loading the plugin');
  }
  const provider: Provider = plugins.defaultProvider;
  let loadBalancing: ControllerContext['loadBalancing'];
  try {
    routeControllerWanted(options, provider, logger);
    loadBalancing = plugins.loadBalancing();
  } catch (err) {
    await plugins.stop();
    throw new StartupError((err as Error).message);
  }
  for (const s of plugins.status()) {
    logger.info('provider initialized', {
      provider: s.providerName,
      name: s.name,
      version: s.version,
      abi: s.abi,
      capabilities: s.capabilities,
      source: s.source,
    });
  }

  let controllers: RunningController[] = [];
  let informers: SharedInformers | undefined;
  const recorders: EventRecorder[] = [pluginEvents];
  let exitCode = 0;
  let leading: Promise<void> | undefined;

  const runControllers = async (signal: AbortSignal): Promise<void> => {
    informers = sharedInformers(client, logger, flags['min-resync-period']);
    const ctx: ControllerContext = {
      options,
      client,
      informers,
      provider,
      logger,
      registry,
      leaseFresh: () => (elector ? elector.leaseFresh() : true),
      recorders,
      loadBalancing,
    };
    controllers = buildControllers(ctx);
    informers.start();
    if (!(await informers.waitForSync(signal))) return;
    logger.info('caches synced; starting controllers', { controllers: controllers.map((c) => c.name) });
    await startStaggered(controllers, flags['controller-start-interval'], signal, async (c) => {
      runningControllers.inc({ name: c.name, manager: 'cloud-controller-manager' });
      try {
        await c.run(signal);
      } finally {
        runningControllers.dec({ name: c.name, manager: 'cloud-controller-manager' });
      }
    });
  };

  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((r) => (resolveDone = r));
  let shuttingDown = false;

  // The server (fastify and its routes) is imported only to serve: with --secure-port=0 it is never loaded.
  const serving = flags['secure-port'] === 0 ? undefined : await import('./serving.ts');
  const server = await serving?.startCCMServer({
    options,
    credentials,
    registry,
    logger,
    leaderCheck: () => elector?.check(),
    controllers: () => controllers,
    plugins,
  });

  const shutdown = (reason: string): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info('shutting down', { reason });
    const forced = setTimeout(() => {
      logger.warn('shutdown deadline passed; exiting without finishing', { deadlineMs: SHUTDOWN_DEADLINE_MS });
      resolveDone(exitCode);
    }, SHUTDOWN_DEADLINE_MS - 2_000);
    forced.unref();
    void (async () => {
      stopping.abort();
      // In-flight syncs may finish, but a sync queued behind a saturated rate limiter must not hold the Lease until
      // the forced exit: that exit does not release it, and a standby would wait a whole lease duration more.
      if (!(await settledWithin(leading, IN_FLIGHT_GRACE_MS))) {
        logger.warn('in-flight syncs did not finish; releasing the lease anyway', { graceMs: IN_FLIGHT_GRACE_MS });
      }
      await informers?.stop();
      await elector?.stop();
      await settledWithin(Promise.allSettled(recorders.map((r) => r.flush())), EVENT_FLUSH_GRACE_MS);
      await plugins.stop().catch(() => undefined);
      await server?.app.close().catch(() => undefined);
      clearTimeout(forced);
      resolveDone(exitCode);
    })();
  };

  if (flags['leader-elect']) {
    // Its own client and rate limiter, as upstream builds one for leader election: renewals queued behind a burst
    // of controller requests in a shared token bucket miss the renew deadline and cost the lease (and the process).
    const leaseClient = new KubeClient(credentials, {
      qps: flags['kube-api-qps'],
      burst: flags['kube-api-burst'],
      registry,
      userAgent: 'wasm-ccm/leader-election',
    });
    elector = new LeaderElector({
      lock: kubeLeaseLock(leaseClient, flags['leader-elect-resource-namespace'], flags['leader-elect-resource-name']),
      identity,
      leaseDurationMs: flags['leader-elect-lease-duration'],
      renewDeadlineMs: flags['leader-elect-renew-deadline'],
      retryPeriodMs: flags['leader-elect-retry-period'],
      releaseOnCancel: true,
      name: flags['leader-elect-resource-name'],
      registry,
      logger: logger.child({ component: 'leader-election' }),
      callbacks: {
        onStartedLeading: (signal) => {
          logger.info('started leading', { identity });
          const both = AbortSignal.any([signal, stopping.signal]);
          leading = runControllers(both);
          return leading;
        },
        onStoppedLeading: () => {
          if (shuttingDown) return;
          logger.error('leaderelection lost', { identity });
          exitCode = 1;
          shutdown('lost the leader lease');
        },
        onNewLeader: (holder) => {
          if (holder !== identity) logger.info('new leader elected', { leader: holder });
        },
      },
    });
    void elector.run();
  } else {
    leading = runControllers(stopping.signal);
  }

  // From here on a signal reaches us through shutdown().
  startSignal?.removeEventListener('abort', abortStart);
  return { done, shutdown, url: server?.url };
}
