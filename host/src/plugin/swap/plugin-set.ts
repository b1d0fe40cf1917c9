// Every provider of the plugin configuration, each behind its own HotSwapper: what the CCM process starts before
// the controllers, hands to them (the default provider, and the load balancer router when classes are configured),
// shows on /debug/plugins and stops last.
import type { Registry } from 'prom-client';
import type { LoadBalancer, Provider } from '../../cloudprovider/index.ts';
import type { KubeClient } from '../../kube/client/client.ts';
import type { Logger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';
import type { PluginConfig, ProviderConfig } from '../config/types.ts';
import { ConfigMapSource } from './configmap-source.ts';
import { FileSource } from './file-source.ts';
import type { RevisionSource } from './source.ts';
import { type CandidateLoader, wasmCandidateLoader } from './candidate.ts';
import { classRoutingBalancer } from './class-router.ts';
import { HotSwapper, type ProviderStatus, type SwapEvents } from './hot-swapper.ts';
import { maxModuleBytes } from './revision-module.ts';
import { createSwapMetrics } from './swap-metrics.ts';
import type { ReplicaGuard } from '../broker/http-broker.ts';

export interface PluginSetOptions {
  config: PluginConfig;
  /** Needed for ConfigMap sources and events; file-only configurations may run without one (tests). */
  client: KubeClient | undefined;
  /** --cloud-provider: what the default provider's plugin must call itself. */
  cloudProvider: string;
  clusterName: string;
  /** The replica's identity (every plugin HTTP request carries it) and its lease, which gates cloud changes. */
  replica?: ReplicaGuard;
  /** Pool size of providers whose poolSize is 0. */
  defaultPoolSize: number;
  logger: Logger;
  registry: Registry | undefined;
  /** Where PluginRejected / PluginSwapped events go (on the ConfigMap). */
  events?: SwapEvents;
  /** Test seams. */
  loader?: (config: ProviderConfig) => CandidateLoader;
  filePollIntervalMs?: number;
}

export interface PluginStatus extends ProviderStatus {
  default: boolean;
  loadBalancerClasses: string[];
}

class PluginSetError extends Error {
  override name = 'PluginSetError';
}

export class PluginSet {
  readonly config: PluginConfig;
  readonly #swappers: Map<string, HotSwapper>;

  /** Loads every provider (in parallel); if one fails, the others are stopped and the first reason is thrown. */
  static async start(options: PluginSetOptions): Promise<PluginSet> {
    const metrics = createSwapMetrics(options.registry);
    const logger = options.logger.child({ component: 'plugins' });
    const started = await Promise.allSettled(
      options.config.providers.map((config) =>
        HotSwapper.start({
          config,
          source: makeSource(config, options, logger),
          load:
            options.loader?.(config) ??
            wasmCandidateLoader(config, {
              clusterName: options.clusterName,
              defaultPoolSize: options.defaultPoolSize,
              logger,
              registry: options.registry,
              replica: options.replica,
            }),
          expectedProviderName: config.name === options.config.defaultProvider ? options.cloudProvider : undefined,
          events: options.events,
          metrics,
          logger,
          drainTimeoutMs: config.limits.callTimeoutMs * 2 + 5_000,
        }),
      ),
    );
    const failed = started.find((r) => r.status === 'rejected');
    const ok = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    if (failed) {
      await Promise.allSettled(ok.map((s) => s.stop()));
      throw new PluginSetError(errorMessage(failed.reason), { cause: failed.reason });
    }
    return new PluginSet(options.config, ok);
  }

  private constructor(config: PluginConfig, swappers: HotSwapper[]) {
    this.config = config;
    this.#swappers = new Map(swappers.map((s) => [s.name, s]));
  }

  /** Serves nodes, routes, zones, clusters and classless LoadBalancer Services. */
  get defaultProvider(): Provider {
    return this.swapper(this.config.defaultProvider).provider;
  }

  swapper(name: string): HotSwapper {
    const s = this.#swappers.get(name);
    if (s === undefined) throw new PluginSetError(`no provider named "${name}"`);
    return s;
  }

  get swappers(): HotSwapper[] {
    return [...this.#swappers.values()];
  }

  /**
   * The service controller's balancer, the classes it also serves and whether it serves classless Services (when
   * the default provider has a balancer); undefined without classes (the default provider's own LoadBalancer then,
   * exactly as with one provider).
   */
  loadBalancing(): { balancer: LoadBalancer; classes: Set<string>; classless: boolean } | undefined {
    if (this.config.loadBalancerClasses.size === 0) return undefined;
    const byClass = new Map<string, LoadBalancer>();
    for (const [cls, name] of this.config.loadBalancerClasses) {
      const balancer = this.swapper(name).provider.loadBalancer();
      if (balancer === undefined)
        throw new PluginSetError(`provider "${name}" (class "${cls}") serves no load balancers`);
      byClass.set(cls, balancer);
    }
    const byDefault = this.defaultProvider.loadBalancer();
    return {
      balancer: classRoutingBalancer(byDefault, byClass),
      classes: new Set(byClass.keys()),
      classless: byDefault !== undefined,
    };
  }

  /** Every plugin has a running instance (readiness). */
  ready(): string | undefined {
    for (const s of this.#swappers.values()) {
      const stats = s.status().instances;
      if (stats.idle + stats.busy === 0) return `provider ${s.name}: no plugin instance is running`;
    }
    return undefined;
  }

  status(): PluginStatus[] {
    return this.swappers.map((s) => ({
      ...s.status(),
      default: s.name === this.config.defaultProvider,
      loadBalancerClasses: [...this.config.loadBalancerClasses].filter(([, p]) => p === s.name).map(([c]) => c),
    }));
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.swappers.map((s) => s.stop()));
  }
}

function makeSource(config: ProviderConfig, options: PluginSetOptions, logger: Logger): RevisionSource {
  const log = logger.child({ provider: config.name });
  const source = config.source;
  if (source.kind === 'file') {
    const maxBytes = maxModuleBytes(config);
    return new FileSource({ path: source.path, pollIntervalMs: options.filePollIntervalMs, logger: log, maxBytes });
  }
  if (options.client === undefined)
    throw new PluginSetError(`provider ${config.name}: a ConfigMap source needs a client`);
  return new ConfigMapSource({
    client: options.client,
    namespace: source.namespace,
    name: source.name,
    key: source.key,
    logger: log,
  });
}
