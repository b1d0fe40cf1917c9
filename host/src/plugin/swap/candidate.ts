// A loaded, initialized plugin that is not serving yet: what a hot swap judges and then switches to. The swap logic
// sees plugins only through this shape, so it can be exercised with fake providers; wasmCandidateLoader is the real
// thing (the plugin runtime's loadPlugin, wrapped as a WasmProvider).
import type { Provider } from '../../cloudprovider/index.ts';
import type { Logger } from '../../log/logger.ts';
import type { Registry } from 'prom-client';
import type { Capability } from '../../abi/index.ts';
import type { ProviderConfig } from '../config/types.ts';
import { loadPlugin } from '../runtime/load-plugin.ts';
import { WasmProvider } from '../runtime/wasm-provider.ts';
import type { PluginLoadOptions } from '../config/options.ts';
import type { ReplicaGuard } from '../broker/http-broker.ts';

export interface CandidateInfo {
  providerName: string;
  version: string;
  abi: string;
  capabilities: ReadonlySet<Capability>;
  sha256: string;
}

export interface PoolStats {
  idle: number;
  busy: number;
  starting: number;
  waiting: number;
}

export interface LoadedCandidate {
  info: CandidateInfo;
  provider: Provider;
  stats(): PoolStats;
  close(): Promise<void>;
}

/**
 * Compiles, checks (import policy, memory cap, ABI major, exports of every declared capability) and initializes a
 * module, with its instance pool warm. Rejects with the reason when any of that fails.
 */
export type CandidateLoader = (bytes: Uint8Array, label: string) => Promise<LoadedCandidate>;

export interface WasmLoaderOptions {
  clusterName: string;
  /** Pool size for a provider whose limits.poolSize is 0 (one per concurrent sync + 1). */
  defaultPoolSize: number;
  logger: Logger;
  registry: Registry | undefined;
  /** The identity the broker sends with every request, and the lease that gates cloud changes (http-broker.ts). */
  replica?: ReplicaGuard;
}

// A poolMinSize above a default (flag-derived) size is honoured by growing the size: the operator asked for that
// many instances to be kept.
function poolOptions(limits: ProviderConfig['limits'], defaultSize: number): PluginLoadOptions['pool'] {
  const size = limits.poolSize > 0 ? limits.poolSize : defaultSize;
  const minInstances = limits.poolMinSize;
  return {
    size: Math.max(size, minInstances ?? 1),
    minInstances,
    idleTimeoutMs: limits.poolIdleTimeoutMs,
  };
}

export function wasmCandidateLoader(config: ProviderConfig, options: WasmLoaderOptions): CandidateLoader {
  return async (bytes, label) => {
    const plugin = await loadPlugin({
      source: { bytes, name: label },
      cloudConfig: config.cloudConfig,
      clusterName: options.clusterName,
      allowedHosts: config.allowedHosts,
      credentials: config.credentialsFile === undefined ? undefined : { file: config.credentialsFile },
      pool: poolOptions(config.limits, options.defaultPoolSize),
      limits: {
        callTimeoutMs: config.limits.callTimeoutMs,
        memoryBytes: config.limits.memoryLimitMB * 1024 * 1024,
      },
      logger: options.logger,
      registry: options.registry,
      provider: config.name,
      replica: options.replica,
    });
    return {
      info: {
        providerName: plugin.providerName,
        version: plugin.description.version,
        abi: plugin.description.abi,
        capabilities: plugin.capabilities,
        sha256: plugin.sha256,
      },
      provider: new WasmProvider(plugin),
      stats: () => plugin.poolStats,
      close: () => plugin.close(),
    };
  };
}
