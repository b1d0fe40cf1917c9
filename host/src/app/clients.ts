// Start-up phase "clients": the metrics registry and the CCM's kube client (the leader election and the server build
// their own from the same credentials), then the wait for the apiserver to answer.
import type { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { KubeClient } from '../kube/client/client.ts';
import type { ApiserverCredentials } from '../kube/client/credentials.ts';
import type { Logger } from '../log/logger.ts';
import { buildInfo, registerBuildInfo } from '../metrics/build-info.ts';
import { nodeRuntimeMetrics } from '../metrics/event-loop-delay.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import { errorMessage } from '../util/error-message.ts';
import { packageVersion } from '../util/package-version.ts';
import { StartupError } from './startup-error.ts';

export interface CCMClients {
  registry: Registry;
  client: KubeClient;
}

export function createClients(
  options: CCMOptions,
  kubeConfig: ApiserverCredentials | KubeConfig,
  logger: Logger,
): CCMClients {
  const registry = new Registry();
  nodeRuntimeMetrics(registry);
  registerBuildInfo(registry, buildInfo(packageVersion()));
  const client = new KubeClient(kubeConfig, {
    qps: options.flags['kube-api-qps'],
    burst: options.flags['kube-api-burst'],
    registry,
    userAgent: 'wasm-ccm',
    logger,
  });
  return { registry, client };
}

const APISERVER_ATTEMPTS = 120;

/** Asks /version once a second until it answers; gives up after two minutes, or when `signal` aborts. */
export async function waitForAPIServer(client: KubeClient, logger: Logger, signal: AbortSignal): Promise<void> {
  let attempt = 0;
  for (;;) {
    try {
      await client.request({ path: '/version', timeoutMs: 5_000, signal });
      return;
    } catch (err) {
      if (signal.aborted) throw new StartupError('stopped while waiting for the apiserver');
      attempt++;
      if (attempt === 1 || attempt % 10 === 0) {
        logger.warn('waiting for the apiserver', { server: client.server, error: errorMessage(err) });
      }
      if (attempt >= APISERVER_ATTEMPTS) {
        throw new StartupError(`the apiserver at ${client.server} did not answer within 2 minutes`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
