// Test provider for test/unit/sdk: zones and loadBalancer, with answers chosen by the request to produce every kind of
// envelope. Methods of other capabilities are left to the SDK's NotImplemented, but for the batched instanceExists and
// instanceShutdown, which the SDK's default of instanceStatusBatch calls (answers chosen by node name).
import {
  Capability,
  CloudConfig,
  EnsureLoadBalancerRequest,
  EnsureLoadBalancerResponse,
  GetLoadBalancerNameRequest,
  GetLoadBalancerNameResponse,
  GetZoneByNodeNameRequest,
  GetZoneRequest,
  HttpClient,
  implementedElsewhere,
  InitializeRequest,
  InitializeResponse,
  InstanceBatchRequest,
  InstanceExistsBatchResponse,
  InstanceExistsOutcome,
  InstanceShutdownBatchResponse,
  InstanceShutdownOutcome,
  instanceNotFound,
  internal,
  invalid,
  IPMode,
  LoadBalancerIngress,
  NodeField,
  PluginError,
  PortStatus,
  Provider,
  registerProvider,
  retryAfter,
  Zone,
} from "@wasm-ccm/plugin-sdk";

export * from "@wasm-ccm/plugin-sdk/exports";

class TestProvider extends Provider {
  region: string = "";

  constructor() {
    super("test", "1.2.3", [Capability.zones, Capability.loadBalancer]);
    this.hasClusterID = true;
    this.loadBalancerNodeFields = [NodeField.name, NodeField.labels];
  }

  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {
    const cfg = CloudConfig.ini();
    if (cfg.problems.length > 0) return invalid("cloud config: " + cfg.problems.join("; "));
    this.region = cfg.get("Global.region", "nowhere");
    return null;
  }

  getZone(req: GetZoneRequest, out: Zone): PluginError | null {
    out.failureDomain = "zone-ü-" + CloudConfig.clusterName();
    out.region = this.region;
    return null;
  }

  getZoneByNodeName(req: GetZoneByNodeNameRequest, out: Zone): PluginError | null {
    const n = req.nodeName;
    if (n == "missing") return instanceNotFound("no node " + n);
    if (n == "busy") return retryAfter(2.5, "busy");
    if (n == "busy-zero") return retryAfter(0, "busy");
    if (n == "broken") return internal("broken ✗");
    if (n == "api") {
      const res = new HttpClient("https://api.example").get("/zones/" + n);
      if (!res.ok) return res.toPluginError();
      const doc = res.json();
      if (doc === null) return internal("zone API answered non-JSON");
      out.failureDomain = doc.get("zone").asString();
      out.region = doc.get("region").asString();
      return null;
    }
    out.failureDomain = "zone-of-" + n;
    out.region = this.region;
    return null;
  }

  getLoadBalancerName(req: GetLoadBalancerNameRequest, out: GetLoadBalancerNameResponse): PluginError | null {
    // Upstream's default: "a" + the Service UID without dashes, at most 32 characters.
    const name = "a" + req.service.uid.replaceAll("-", "");
    out.name = name.length > 32 ? name.substring(0, 32) : name;
    return null;
  }

  ensureLoadBalancer(req: EnsureLoadBalancerRequest, out: EnsureLoadBalancerResponse): PluginError | null {
    const svc = req.service;
    if (svc.annotations.has("test/elsewhere")) return implementedElsewhere("handled by another controller");
    if (svc.annotations.has("test/bad")) return invalid("annotation test/bad: " + svc.annotations.get("test/bad"));
    // "test/reverse-and-pop" changes the list it was handed in place; "test/first-node" names its first node.
    if (svc.annotations.has("test/reverse-and-pop")) {
      req.nodes.reverse();
      req.nodes.pop();
    }
    const ingress = new LoadBalancerIngress();
    ingress.ip = "203.0.113." + req.nodes.length.toString();
    ingress.ipMode = IPMode.VIP;
    if (svc.annotations.has("test/first-node") && req.nodes.length > 0) ingress.hostname = req.nodes[0].name;
    for (let i = 0; i < svc.ports.length; i++) {
      const p = new PortStatus();
      p.port = svc.ports[i].port;
      p.protocol = svc.ports[i].protocol;
      ingress.ports.push(p);
    }
    out.status.ingress.push(ingress);
    return null;
  }

  // "down" fails the whole call, "short" leaves its outcome out; a name starting with "gone" does not exist.
  instanceExistsBatch(req: InstanceBatchRequest, out: InstanceExistsBatchResponse): PluginError | null {
    for (let i = 0; i < req.nodes.length; i++) {
      const name = req.nodes[i].name;
      if (name == "down") return internal("exists listing failed");
      if (name == "short") continue;
      const outcome = new InstanceExistsOutcome();
      outcome.ok.exists = !name.startsWith("gone");
      out.results.push(outcome);
    }
    return null;
  }

  // "throttle" fails the whole call; a name starting with "off" is shut down. Asked about a missing node, it fails.
  instanceShutdownBatch(req: InstanceBatchRequest, out: InstanceShutdownBatchResponse): PluginError | null {
    for (let i = 0; i < req.nodes.length; i++) {
      const name = req.nodes[i].name;
      if (name == "throttle") return retryAfter(30, "slow down");
      if (name.startsWith("gone")) return internal("asked whether missing node " + name + " is shut down");
      const outcome = new InstanceShutdownOutcome();
      outcome.ok.shutdown = name.startsWith("off");
      out.results.push(outcome);
    }
    return null;
  }
}

registerProvider(new TestProvider());
