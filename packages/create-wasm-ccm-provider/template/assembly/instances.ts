// instancesV2: a node is found by its providerID (<name>://<instance id>) first, by its name otherwise (kubelets
// register nodes without one). A terminated instance counts as gone; a stopped one exists and is shut down.
import {
  InstanceExistsRequest,
  InstanceExistsResponse,
  InstanceMetadata,
  InstanceMetadataRequest,
  InstanceShutdownRequest,
  InstanceShutdownResponse,
  JsonValue,
  Node,
  NodeAddress,
  PluginError,
  instanceNotFound,
  invalid,
  urlPath,
} from "@wasm-ccm/plugin-sdk";
import { Api, Found } from "./api";
import { PROVIDER_NAME } from "./name";

export const SCHEME = PROVIDER_NAME + "://";

/** The instance behind a providerID of ours, or an Invalid error for anyone else's (never "not found"). */
export function findByProviderID(api: Api, providerID: string): Found {
  const id = providerID.startsWith(SCHEME) ? providerID.substring(SCHEME.length) : "";
  if (id.length == 0) return Found.failed(invalid('providerID "' + providerID + '" is not ' + SCHEME + "<id>"));
  return api.find(urlPath(["instances", id]), "get instance " + id);
}

export function findByName(api: Api, name: string): Found {
  return api.find(urlPath(["instances", "by-name", name]), "get instance named " + name);
}

export function findNode(api: Api, node: Node): Found {
  return node.providerID.length > 0 ? findByProviderID(api, node.providerID) : findByName(api, node.name);
}

/** The instance when it exists and is not terminated, else null. */
export function live(found: Found): JsonValue | null {
  const inst = found.value;
  if (inst === null || inst.get("state").asString() == "terminated") return null;
  return inst;
}

function notFound(node: Node): PluginError {
  return instanceNotFound("node " + node.name + ": no instance (missing or terminated)");
}

export function instanceExists(api: Api, req: InstanceExistsRequest, out: InstanceExistsResponse): PluginError | null {
  const found = findNode(api, req.node);
  if (found.error !== null) return found.error;
  out.exists = live(found) !== null;
  return null;
}

export function instanceShutdown(
  api: Api,
  req: InstanceShutdownRequest,
  out: InstanceShutdownResponse,
): PluginError | null {
  const found = findNode(api, req.node);
  if (found.error !== null) return found.error;
  const inst = live(found);
  if (inst === null) return notFound(req.node);
  out.shutdown = inst.get("state").asString() == "stopped";
  return null;
}

export function instanceMetadata(api: Api, req: InstanceMetadataRequest, out: InstanceMetadata): PluginError | null {
  const found = findNode(api, req.node);
  if (found.error !== null) return found.error;
  const inst = live(found);
  if (inst === null) return notFound(req.node);
  out.providerID = SCHEME + inst.get("id").asString();
  out.instanceType = inst.get("type").asString();
  out.zone = inst.get("zone").asString();
  out.region = inst.get("region").asString();
  const addresses = inst.get("addresses");
  for (let i = 0; i < addresses.length; i++) {
    const a = new NodeAddress();
    a.type = addresses.at(i).get("type").asString();
    a.address = addresses.at(i).get("address").asString();
    out.nodeAddresses.push(a);
  }
  return null;
}
