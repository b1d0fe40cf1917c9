// @ts-nocheck: AssemblyScript, compiled by asc (lab/plugins/hotswap-modules.ts), not by tsc.
// A "devcloud" that speaks provider ABI 2.0, a major this host does not: a hot swap must refuse it.
import { Capability, DescribeRequest, DescribeResponse, PluginError, Provider, registerProvider } from "@wasm-ccm/plugin-sdk";

export * from "@wasm-ccm/plugin-sdk/exports";

class FutureAbi extends Provider {
  constructor() {
    super("devcloud", "77.0.0", [Capability.instancesV2, Capability.loadBalancer, Capability.routes, Capability.zones, Capability.clusters]);
    this.hasClusterID = true;
  }

  describe(req: DescribeRequest, out: DescribeResponse): PluginError | null {
    super.describe(req, out);
    out.abi = "2.0";
    return null;
  }
}

registerProvider(new FutureAbi());
