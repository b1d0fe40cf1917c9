// Nodes to devcloud instances and back. A node is found by its providerID (devcloud://<id>) first, by its name
// otherwise, as upstream providers do. Terminated instances count as gone (InstanceExists false); stopped ones exist.
import {
  InstanceExistsResponse,
  InstanceMetadata,
  InstanceShutdownResponse,
  JsonValue,
  Node,
  NodeAddress,
  NodeAddressType,
  PluginError,
  instanceNotFound,
  internal,
  invalid,
} from "@wasm-ccm/plugin-sdk";
import { Api, cloudError } from "./api";
import { isLabelToken } from "./names";

export const SCHEME = "devcloud://";

export class Lookup {
  /** The instance, when one was found (it may be terminated: check `gone`). */
  instance: JsonValue | null = null;
  error: PluginError | null = null;

  /** No instance, or a terminated one: upstream's "does not exist". */
  get gone(): bool {
    const inst = this.instance;
    return inst === null || inst.get("state").asString() == "terminated";
  }
}

/** The instance id in a devcloud providerID; null when `providerID` is not one. */
export function instanceIdOf(providerID: string): string | null {
  if (!providerID.startsWith(SCHEME)) return null;
  const id = providerID.substring(SCHEME.length);
  if (id.length == 0 || id.includes("/")) return null;
  return id;
}

function fetchInstance(api: Api, path: string, what: string): Lookup {
  const out = new Lookup();
  const res = api.get(path);
  if (res.status == 404 && res.error === null) return out;
  if (!res.ok) {
    out.error = cloudError(what, res);
    return out;
  }
  const doc = res.json();
  if (doc === null || doc.get("id").asString().length == 0)
    out.error = internal(what + ": devcloud answered no instance");
  else out.instance = doc;
  return out;
}

export function lookupById(api: Api, id: string): Lookup {
  return fetchInstance(api, "/instances/" + encodeURIComponent(id), "get instance " + id);
}

export function lookupByName(api: Api, name: string): Lookup {
  return fetchInstance(api, "/instances/by-name/" + encodeURIComponent(name), "get instance named " + name);
}

/**
 * Why `node` cannot be looked up, or null. A providerID of another cloud is never "not found": that would let the
 * lifecycle controller delete a node that is simply not ours.
 */
export function nodeProblem(node: Node): PluginError | null {
  if (node.providerID.length > 0 && instanceIdOf(node.providerID) === null) {
    return invalid("node " + node.name + ': providerID "' + node.providerID + '" is not devcloud://<instance id>');
  }
  if (node.providerID.length == 0 && node.name.length == 0) return invalid("node has neither a providerID nor a name");
  return null;
}

export function lookupNode(api: Api, node: Node): Lookup {
  const problem = nodeProblem(node);
  if (problem !== null) {
    const out = new Lookup();
    out.error = problem;
    return out;
  }
  const id = instanceIdOf(node.providerID);
  return id !== null ? lookupById(api, id) : lookupByName(api, node.name);
}

/** InstanceExists from a lookup: a terminated or missing instance does not exist. */
export function existsFrom(found: Lookup, out: InstanceExistsResponse): PluginError | null {
  if (found.error !== null) return found.error;
  out.exists = !found.gone;
  return null;
}

export function shutdownFrom(found: Lookup, node: Node, out: InstanceShutdownResponse): PluginError | null {
  if (found.error !== null) return found.error;
  const inst = found.instance;
  if (inst === null || found.gone) return notFound(node);
  out.shutdown = inst.get("state").asString() == "stopped";
  return null;
}

export function metadataFrom(found: Lookup, node: Node, prefix: string, out: InstanceMetadata): PluginError | null {
  if (found.error !== null) return found.error;
  const inst = found.instance;
  if (inst === null || found.gone) return notFound(node);
  fillMetadata(inst, prefix, out);
  return null;
}

export function notFound(node: Node): PluginError {
  const which = node.providerID.length > 0 ? node.providerID : "named " + node.name;
  return instanceNotFound("node " + node.name + ": no devcloud instance " + which + " (missing or terminated)");
}

const ADDRESS_TYPES = [
  NodeAddressType.Hostname,
  NodeAddressType.ExternalIP,
  NodeAddressType.InternalIP,
  NodeAddressType.ExternalDNS,
  NodeAddressType.InternalDNS,
];

export function addressesOf(inst: JsonValue): NodeAddress[] {
  const out = new Array<NodeAddress>();
  const list = inst.get("addresses");
  for (let i = 0; i < list.length; i++) {
    const a = new NodeAddress();
    a.type = list.at(i).get("type").asString();
    a.address = list.at(i).get("address").asString();
    // devcloud's address types are the ABI's; a type added later is left out rather than failing the answer.
    if (ADDRESS_TYPES.includes(a.type) && a.address.length > 0) out.push(a);
  }
  return out;
}

/**
 * Instance labels as node labels under `prefix`. devcloud labels are free-form, so only those that make a valid
 * Kubernetes label (an unprefixed name and a valid value) are kept; a key with its own prefix is left out.
 */
export function labelsOf(inst: JsonValue, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  const labels = inst.get("labels").toStringMap();
  const keys = labels.keys();
  for (let i = 0; i < keys.length; i++) {
    const value = labels.get(keys[i]);
    if (isLabelToken(keys[i], false) && isLabelToken(value, true)) out.set(prefix + keys[i], value);
  }
  return out;
}

export function fillMetadata(inst: JsonValue, prefix: string, out: InstanceMetadata): void {
  out.providerID = SCHEME + inst.get("id").asString();
  out.instanceType = inst.get("type").asString();
  out.nodeAddresses = addressesOf(inst);
  out.zone = inst.get("zone").asString();
  out.region = inst.get("region").asString();
  out.additionalLabels = labelsOf(inst, prefix);
}
