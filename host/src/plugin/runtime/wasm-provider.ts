// The Provider the controllers use, backed by a WebAssembly plugin. Capabilities the plugin did not declare are
// undefined, as upstream's `(nil, false)`; every method is one ABI call with the method's trimmed request, written
// out in capabilities.generated.ts from the ABI definition. An optional method the plugin does not export is absent.
import { buildCapabilities, CapabilitySetProvider, preparingNodeLists } from '../../cloudprovider/index.ts';
import type { PluginLoadOptions } from '../config/options.ts';
import type { LoadedPlugin } from './loaded-plugin.ts';
import { loadPlugin } from './load-plugin.ts';
import { PLUGIN_CAPABILITIES, type PluginCalls } from './capabilities.generated.ts';

export class WasmProvider extends CapabilitySetProvider {
  readonly plugin: LoadedPlugin;

  /** Loads, checks and initializes the plugin, and starts its instance set. */
  static async load(options: PluginLoadOptions): Promise<WasmProvider> {
    return new WasmProvider(await loadPlugin(options));
  }

  constructor(plugin: LoadedPlugin) {
    const calls: PluginCalls = {
      call: (method, request) => plugin.call(method, request),
      exports: (method) => plugin.exports(method),
    };
    const capabilities = buildCapabilities(plugin.capabilities, PLUGIN_CAPABILITIES, calls);
    super(preparingNodeLists(capabilities, (nodes) => plugin.prepareNodes(nodes)));
    this.plugin = plugin;
  }

  providerName(): string {
    return this.plugin.providerName;
  }

  hasClusterID(): boolean {
    return this.plugin.description.hasClusterID;
  }

  /** Stops every instance and releases the plugin's HTTP connections and credential polling. */
  close(): Promise<void> {
    return this.plugin.close();
  }
}
