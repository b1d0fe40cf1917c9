// The class a vendor extends. See plugin-sdk/README.md for a walk-through.
import { DescribeRequest, DescribeResponse, InitializeRequest, InitializeResponse } from "./abi/types.generated";
import { ABI_VERSION } from "./abi/types.generated";
import { ProviderMethods } from "./provider.generated";
import { PluginError } from "./errors";

/**
 * A cloud provider. Subclass it, call super(name, version, capabilities) and override the methods of the declared
 * capabilities; register one instance with registerProvider() at the top level of the plugin's entry file.
 */
export class Provider extends ProviderMethods {
  /** The --cloud-provider name, and the scheme of provider IDs (`<name>://<id>`). */
  name: string;
  version: string;
  /** Capability names (Capability.instancesV2, ...): the host checks every method of each is exported. */
  capabilities: string[];
  /** Whether the provider tells clusters apart (upstream HasClusterID). */
  hasClusterID: bool = false;
  /**
   * The Node fields (NodeField.providerID, ...) the load balancer methods read (ABI 1.7): their node lists carry only
   * these, which makes the first call of each instance cheaper by the size of the rest (labels and annotations are
   * most of a Node). Empty, the default: every field. A field left out is empty ("", an empty map or list).
   */
  loadBalancerNodeFields: string[] = [];

  constructor(name: string, version: string, capabilities: string[]) {
    super();
    this.name = name;
    this.version = version;
    this.capabilities = capabilities;
  }

  /** Answers ccm_describe from the fields above; there is rarely a reason to override it. */
  describe(req: DescribeRequest, out: DescribeResponse): PluginError | null {
    out.abi = ABI_VERSION;
    out.providerName = this.name;
    out.version = this.version;
    out.capabilities = this.capabilities;
    out.hasClusterID = this.hasClusterID;
    out.loadBalancerNodeFields = this.loadBalancerNodeFields;
    return null;
  }

  /**
   * Called once per instance before any other call but describe; the config is also available from CloudConfig.
   * Return an error to refuse a bad config (the host reports it and does not use the plugin).
   */
  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {
    return null;
  }
}

let registered: Provider | null = null;

/** Makes `p` the provider serving every call. Call once, at the top level of the plugin's entry file. */
export function registerProvider(p: Provider): void {
  registered = p;
}

export function registeredProvider(): Provider | null {
  return registered;
}
