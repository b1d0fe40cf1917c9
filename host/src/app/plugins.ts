// Start-up phase "plugin": every provider's current module is verified and initialized now; afterwards each is
// swapped in place whenever its source changes (the controllers hold SwappableProviders and never notice).
import type { Provider } from '../cloudprovider/index.ts';
import type { EventRecorder } from '../kube/events/recorder.ts';
import type { Logger } from '../log/logger.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import { type ReplicaGuard, PluginSet } from '../plugin/index.ts';
import { errorMessage } from '../util/error-message.ts';
import type { CCMClients } from './clients.ts';
import { type ControllerContext, eventRecorder, routeControllerWanted } from './controllers.ts';
import { StartupError } from './startup-error.ts';

export interface StartedPlugins {
  plugins: PluginSet;
  /** The default provider's SwappableProvider: what the controllers call. */
  provider: Provider;
  loadBalancing: ControllerContext['loadBalancing'];
  /** Warning events about refused modules, on their ConfigMap; flushed with the controllers' at shutdown. */
  events: EventRecorder;
}

export async function startPlugins(
  options: CCMOptions,
  { client, registry }: CCMClients,
  replica: ReplicaGuard,
  logger: Logger,
  signal: AbortSignal,
): Promise<StartedPlugins> {
  if (options.pluginConfig === undefined) {
    throw new StartupError('--plugin: a provider plugin (.wasm) is required (or --plugin-config)');
  }
  const flags = options.flags;
  const events = eventRecorder(client, logger, 'wasm-ccm');
  let plugins: PluginSet;
  try {
    plugins = await PluginSet.start({
      config: options.pluginConfig,
      client,
      cloudProvider: flags['cloud-provider'],
      clusterName: flags['cluster-name'],
      // With leader election, only a leader whose lease is fresh changes the cloud.
      replica,
      defaultPoolSize: flags['concurrent-node-syncs'] + flags['concurrent-service-syncs'] + 1,
      logger,
      registry,
      events,
    });
  } catch (err) {
    throw new StartupError(errorMessage(err), { cause: err });
  }
  if (signal.aborted) {
    await plugins.stop();
    throw new StartupError('stopped while loading the plugin');
  }
  const provider = plugins.defaultProvider;
  let loadBalancing: ControllerContext['loadBalancing'];
  try {
    // Checked before anything starts: a route controller without --cluster-cidr is a start-up error, as upstream.
    routeControllerWanted(options, provider, logger);
    loadBalancing = plugins.loadBalancing();
  } catch (err) {
    await plugins.stop();
    throw new StartupError(errorMessage(err));
  }
  logInitialized(plugins, logger);
  return { plugins, provider, loadBalancing, events };
}

function logInitialized(plugins: PluginSet, logger: Logger): void {
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
}
