// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/hotswap-modules.ts), not by tsc.
// A "devcloud" that describes itself correctly but traps in ccm_initialize: a hot swap must refuse it.
import { Capability, InitializeRequest, InitializeResponse, PluginError, Provider, registerProvider } from "@wasm-ccm/plugin-sdk";

export * from "@wasm-ccm/plugin-sdk/exports";

class TrapInInitialize extends Provider {
  constructor() {
    super("devcloud", "66.0.0", [Capability.instancesV2, Capability.loadBalancer, Capability.routes, Capability.zones, Capability.clusters]);
    this.hasClusterID = true;
  }

  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {
    unreachable();
    return null;
  }
}

registerProvider(new TrapInInitialize());
