// The example provider: answers instancesV2 from a static table of instances given as the cloud config (JSON).
// Small, but built the way a real provider is; see plugins/example/README.md for the config format.
import {
  Capability,
  CloudConfig,
  fields,
  InitializeRequest,
  InitializeResponse,
  InstanceExistsRequest,
  InstanceExistsResponse,
  InstanceMetadata,
  InstanceMetadataRequest,
  InstanceShutdownRequest,
  InstanceShutdownResponse,
  instanceNotFound,
  invalid,
  JsonKind,
  JsonValue,
  Log,
  Node,
  NodeAddress,
  PluginError,
  Provider,
  registerProvider,
} from "@wasm-ccm/plugin-sdk";

export * from "@wasm-ccm/plugin-sdk/exports";

const NAME = "example";
const ADDRESS_TYPES = ["Hostname", "ExternalIP", "InternalIP", "ExternalDNS", "InternalDNS"];

class Instance {
  id: string = "";
  nodeName: string = "";
  instanceType: string = "";
  zone: string = "";
  region: string = "";
  shutdown: bool = false;
  addresses: NodeAddress[] = [];
  labels: Map<string, string> = new Map();
}

class ExampleProvider extends Provider {
  private table: Instance[] = [];

  constructor() {
    super(NAME, "0.1.0", [Capability.instancesV2]);
  }

  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {
    const cfg = req.cloudConfig.length > 0 ? JsonValue.parse(req.cloudConfig) : JsonValue.parse("{}");
    if (cfg === null) return invalid("cloud config is not JSON: " + JsonValue.lastError());
    const list = cfg.get("instances");
    if (!list.isNull && list.kind != JsonKind.Array) return invalid("cloud config: instances must be a list");
    const table = new Array<Instance>();
    for (let i = 0; i < list.length; i++) {
      const item = list.at(i);
      const where = "cloud config: instances[" + i.toString() + "]";
      const inst = new Instance();
      inst.id = item.get("id").asString();
      if (inst.id.length == 0) return invalid(where + ".id is required");
      inst.nodeName = item.get("nodeName").asString(inst.id);
      inst.instanceType = item.get("instanceType").asString();
      inst.zone = item.get("zone").asString();
      inst.region = item.get("region").asString();
      inst.shutdown = item.get("shutdown").asBool();
      inst.labels = item.get("labels").toStringMap();
      const addrs = item.get("addresses");
      for (let j = 0; j < addrs.length; j++) {
        const a = new NodeAddress();
        a.type = addrs.at(j).get("type").asString();
        a.address = addrs.at(j).get("address").asString();
        if (!ADDRESS_TYPES.includes(a.type)) {
          return invalid(where + ".addresses[" + j.toString() + "].type: unknown address type \"" + a.type + "\"");
        }
        inst.addresses.push(a);
      }
      table.push(inst);
    }
    this.table = table;
    const f = fields().set("instances", table.length.toString()).set("cluster", CloudConfig.clusterName());
    Log.info("example provider initialized", f);
    return null;
  }

  // Upstream providers look at spec.providerID first, then at the node name.
  private find(node: Node): Instance | null {
    const prefix = NAME + "://";
    if (node.providerID.startsWith(prefix)) {
      const id = node.providerID.substring(prefix.length);
      for (let i = 0; i < this.table.length; i++) if (this.table[i].id == id) return this.table[i];
      return null;
    }
    for (let i = 0; i < this.table.length; i++) if (this.table[i].nodeName == node.name) return this.table[i];
    return null;
  }

  instanceExists(req: InstanceExistsRequest, out: InstanceExistsResponse): PluginError | null {
    out.exists = this.find(req.node) !== null;
    return null;
  }

  instanceShutdown(req: InstanceShutdownRequest, out: InstanceShutdownResponse): PluginError | null {
    const inst = this.find(req.node);
    if (inst === null) return instanceNotFound("no instance for node " + req.node.name);
    out.shutdown = inst.shutdown;
    return null;
  }

  instanceMetadata(req: InstanceMetadataRequest, out: InstanceMetadata): PluginError | null {
    const inst = this.find(req.node);
    if (inst === null) return instanceNotFound("no instance for node " + req.node.name);
    out.providerID = NAME + "://" + inst.id;
    out.instanceType = inst.instanceType;
    out.nodeAddresses = inst.addresses;
    out.zone = inst.zone;
    out.region = inst.region;
    out.additionalLabels = inst.labels;
    return null;
  }
}

registerProvider(new ExampleProvider());
