// The cloud-controller-manager process, in upstream's order: wait for the apiserver, initialize the provider,
// serve health and metrics, then (while leading) start informers and controllers. Losing the lease exits
// non-zero; SIGTERM stops taking work, lets in-flight calls finish, releases the Lease and exits 0 within 30 s.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Provider } from '../cloudprovider/index.ts';
import { KubeClient } from '../kube/client/client.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { defaultIdentity, LeaderElector } from '../kube/leaderelection/elector.ts';
import { kubeLeaseLock } from '../kube/leaderelection/lease-lock.ts';
import type { Logger } from '../log/logger.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import { loadPlugin, type LoadedPlugin, WasmProvider } from '../plugin/index.ts';
import {
  buildControllers,
  type ControllerContext,
  routeControllerWanted,
  type RunningController,
} from './controllers.ts';
import { type SharedInformers, sharedInformers } from './informers.ts';
import { startCCMServer } from './serving.ts';
import type { EventRecorder } from '../kube/events/recorder.ts';

export const SHUTDOWN_DEADLINE_MS = 30_000;

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
  kubeConfig: KubeConfig,
  logger: Logger,
  startSignal?: AbortSignal,
): Promise<CCMHandle> {
  const flags = options.flags;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const runningControllers = new Gauge({
    name: 'running_managed_controllers',
    help: 'Indicates where instances of a controller are currently running',
    labelNames: ['name', 'manager'] as const,
    registers: [registry],
  });
  const client = new KubeClient(kubeConfig, {
    qps: flags['kube-api-qps'],
    burst: flags['kube-api-burst'],
    registry,
    userAgent: 'wasm-ccm',
  });
  const stopping = new AbortController();
  const abortStart = (): void => stopping.abort();
  if (startSignal?.aborted) abortStart();
  startSignal?.addEventListener('abort', abortStart, { once: true });
  await waitForAPIServer(client, logger, stopping.signal);

  if (flags.plugin === '') throw new StartupError('--plugin: a provider plugin (.wasm) is required');
  let plugin: LoadedPlugin;
  let pluginSha256: string;
  try {
    // Read once: the bytes that are verified and run are the bytes whose digest /debug/plugins shows.
    const bytes = new Uint8Array(await readFile(flags.plugin));
    pluginSha256 = createHash('sha256').update(bytes).digest('hex');
    plugin = await loadPlugin({
      source: { bytes, name: basename(flags.plugin) },
      sha256: flags['plugin-sha256'] || undefined,
      cloudConfig: options.cloudConfig,
      clusterName: flags['cluster-name'],
      allowedHosts: flags['plugin-allowed-hosts'],
      credentials: flags['plugin-credentials'] ? { file: flags['plugin-credentials'] } : undefined,
      pool: {
        size:
          flags['plugin-pool-size'] > 0
            ? flags['plugin-pool-size']
            : flags['concurrent-node-syncs'] + flags['concurrent-service-syncs'] + 1,
      },
      limits: {
        callTimeoutMs: flags['plugin-call-timeout'],
        memoryBytes: flags['plugin-memory-limit-mb'] * 1024 * 1024,
      },
      logger,
      registry,
    });
  } catch (err) {
    throw new StartupError((err as Error).message, { cause: err });
  }
  if (stopping.signal.aborted) {
    await plugin.close();
    throw new StartupError('stopped while loading the plugin');
  }
  if (plugin.providerName !== flags['cloud-provider']) {
    await plugin.close();
    throw new StartupError(
      `--cloud-provider: "${flags['cloud-provider']}" does not match the plugin's provider name "${plugin.providerName}"`,
    );
  }
  const provider: Provider = new WasmProvider(plugin);
  try {
    routeControllerWanted(options, provider, logger);
  } catch (err) {
    await plugin.close();
    throw new StartupError((err as Error).message);
  }
  logger.info('provider initialized', {
    provider: plugin.providerName,
    version: plugin.description.version,
    abi: plugin.description.abi,
    capabilities: [...plugin.capabilities],
  });

  const identity = defaultIdentity();
  let elector: LeaderElector | undefined;
  let controllers: RunningController[] = [];
  let informers: SharedInformers | undefined;
  const recorders: EventRecorder[] = [];
  let exitCode = 0;
  let leading: Promise<void> | undefined;

  const runControllers = async (signal: AbortSignal): Promise<void> => {
    informers = sharedInformers(client, logger);
    const ctx: ControllerContext = {
      options,
      client,
      informers,
      provider,
      logger,
      registry,
      leaseFresh: () => (elector ? elector.leaseFresh() : true),
      recorders,
    };
    controllers = buildControllers(ctx);
    informers.start();
    if (!(await informers.waitForSync(signal))) return;
    logger.info('caches synced; starting controllers', { controllers: controllers.map((c) => c.name) });
    await Promise.all(
      controllers.map(async (c) => {
        runningControllers.inc({ name: c.name, manager: 'cloud-controller-manager' });
        try {
          await c.run(signal);
        } finally {
          runningControllers.dec({ name: c.name, manager: 'cloud-controller-manager' });
        }
      }),
    );
  };

  const controllersStop = new AbortController();
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((r) => (resolveDone = r));
  let shuttingDown = false;

  const server =
    flags['secure-port'] === 0
      ? undefined
      : await startCCMServer({
          options,
          kubeConfig,
          registry,
          logger,
          leaderCheck: () => elector?.check(),
          controllers: () => controllers,
          plugin,
          pluginSha256,
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
      controllersStop.abort();
      await leading?.catch(() => undefined);
      await informers?.stop();
      await elector?.stop();
      await Promise.allSettled(recorders.map((r) => r.flush()));
      await plugin.close().catch(() => undefined);
      await server?.app.close().catch(() => undefined);
      clearTimeout(forced);
      resolveDone(exitCode);
    })();
  };

  if (flags['leader-elect']) {
    elector = new LeaderElector({
      lock: kubeLeaseLock(client, flags['leader-elect-resource-namespace'], flags['leader-elect-resource-name']),
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
          const both = AbortSignal.any([signal, controllersStop.signal]);
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
    leading = runControllers(controllersStop.signal);
  }

  // From here on a signal reaches us through shutdown().
  startSignal?.removeEventListener('abort', abortStart);
  return { done, shutdown, url: server?.url };
}
