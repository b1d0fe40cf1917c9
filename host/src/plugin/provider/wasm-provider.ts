// The Provider the controllers use, backed by a WebAssembly plugin. Capabilities the plugin did not declare are
// undefined, as upstream's `(nil, false)`; every method is one ABI call with the method's trimmed request.
import type {
  Clusters,
  Instances,
  InstancesV2,
  LoadBalancer,
  Provider,
  Routes,
  Zones,
} from '../../cloudprovider/provider.ts';
import type { MethodName, Requests, Responses } from '../../abi/index.ts';
import type { PluginLoadOptions } from '../options.ts';
import type { LoadedPlugin } from '../runtime/loaded-plugin.ts';
import { loadPlugin } from '../runtime/load-plugin.ts';

export class WasmProvider implements Provider {
  readonly plugin: LoadedPlugin;
  readonly #instancesV2: InstancesV2 | undefined;
  readonly #instances: Instances | undefined;
  readonly #loadBalancer: LoadBalancer | undefined;
  readonly #routes: Routes | undefined;
  readonly #zones: Zones | undefined;
  readonly #clusters: Clusters | undefined;

  /** Loads, checks and initializes the plugin, and starts its instance pool. */
  static async load(options: PluginLoadOptions): Promise<WasmProvider> {
    return new WasmProvider(await loadPlugin(options));
  }

  constructor(plugin: LoadedPlugin) {
    this.plugin = plugin;
    const call = <M extends MethodName>(method: M, request: Requests[M]): Promise<Responses[M]> =>
      plugin.call(method, request);
    const has = (capability: Parameters<LoadedPlugin['capabilities']['has']>[0]): boolean =>
      plugin.capabilities.has(capability);

    this.#instancesV2 = has('instancesV2')
      ? {
          instanceExists: async (node) => (await call('instanceExists', { node })).exists,
          instanceShutdown: async (node) => (await call('instanceShutdown', { node })).shutdown,
          instanceMetadata: (node) => call('instanceMetadata', { node }),
        }
      : undefined;
    this.#instances = has('instances')
      ? {
          nodeAddresses: async (nodeName) => (await call('nodeAddresses', { nodeName })).addresses,
          nodeAddressesByProviderID: async (providerID) =>
            (await call('nodeAddressesByProviderID', { providerID })).addresses,
          instanceID: async (nodeName) => (await call('instanceID', { nodeName })).instanceID,
          instanceType: async (nodeName) => (await call('instanceType', { nodeName })).instanceType,
          instanceTypeByProviderID: async (providerID) =>
            (await call('instanceTypeByProviderID', { providerID })).instanceType,
          instanceExistsByProviderID: async (providerID) =>
            (await call('instanceExistsByProviderID', { providerID })).exists,
          instanceShutdownByProviderID: async (providerID) =>
            (await call('instanceShutdownByProviderID', { providerID })).shutdown,
        }
      : undefined;
    this.#loadBalancer = has('loadBalancer')
      ? {
          getLoadBalancer: (clusterName, service) => call('getLoadBalancer', { clusterName, service }),
          getLoadBalancerName: async (clusterName, service) =>
            (await call('getLoadBalancerName', { clusterName, service })).name,
          ensureLoadBalancer: async (clusterName, service, nodes) =>
            (await call('ensureLoadBalancer', { clusterName, service, nodes })).status,
          updateLoadBalancer: async (clusterName, service, nodes) => {
            await call('updateLoadBalancer', { clusterName, service, nodes });
          },
          ensureLoadBalancerDeleted: async (clusterName, service) => {
            await call('ensureLoadBalancerDeleted', { clusterName, service });
          },
        }
      : undefined;
    this.#routes = has('routes')
      ? {
          listRoutes: async (clusterName) => (await call('listRoutes', { clusterName })).routes,
          createRoute: async (clusterName, nameHint, route) => {
            await call('createRoute', { clusterName, nameHint, route });
          },
          deleteRoute: async (clusterName, route) => {
            await call('deleteRoute', { clusterName, route });
          },
        }
      : undefined;
    this.#zones = has('zones')
      ? {
          getZone: () => call('getZone', {}),
          getZoneByProviderID: (providerID) => call('getZoneByProviderID', { providerID }),
          getZoneByNodeName: (nodeName) => call('getZoneByNodeName', { nodeName }),
        }
      : undefined;
    this.#clusters = has('clusters')
      ? {
          listClusters: async () => (await call('listClusters', {})).clusters,
          master: async (clusterName) => (await call('master', { clusterName })).address,
        }
      : undefined;
  }

  providerName(): string {
    return this.plugin.providerName;
  }

  hasClusterID(): boolean {
    return this.plugin.description.hasClusterID;
  }

  instancesV2(): InstancesV2 | undefined {
    return this.#instancesV2;
  }

  instances(): Instances | undefined {
    return this.#instances;
  }

  loadBalancer(): LoadBalancer | undefined {
    return this.#loadBalancer;
  }

  routes(): Routes | undefined {
    return this.#routes;
  }

  zones(): Zones | undefined {
    return this.#zones;
  }

  clusters(): Clusters | undefined {
    return this.#clusters;
  }

  /** Stops every instance and releases the plugin's HTTP connections and credential polling. */
  close(): Promise<void> {
    return this.plugin.close();
  }
}
