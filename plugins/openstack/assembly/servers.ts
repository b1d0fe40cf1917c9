// Nova servers for nodes, found as OCCM finds them: by the providerID's server ID (openstack:///<id>, or
// openstack://<region>/<id>, or a bare ID), else by the node name as the server's exact name; a 404 is "no such
// instance". The instance type is the flavor's name (its ID when the name is no valid label value), the zone the
// server's availability zone made a valid label.
import { encodeComponent, instanceNotFound, internal, invalid, JsonValue, Node, PluginError } from "@wasm-ccm/plugin-sdk";
import { Answer, Api, get } from "./api";

export const PROVIDER_NAME = "openstack";
const SCHEME = "openstack://";

export class ServerAddress {
  address: string = "";
  /** OS-EXT-IPS:type: "fixed" or "floating". */
  kind: string = "";
}

export class ServerNetwork {
  name: string = "";
  addresses: ServerAddress[] = [];
}

export class Server {
  id: string = "";
  name: string = "";
  status: string = "";
  flavorID: string = "";
  availabilityZone: string = "";
  accessIPv4: string = "";
  accessIPv6: string = "";
  /** metadata.hostname: OCCM's Hostname address. */
  hostname: string = "";
  /** The server's addresses by network, networks sorted by name (Go walks the decoded map in that order). */
  networks: ServerNetwork[] = [];
}

export function parseServer(doc: JsonValue): Server {
  const s = new Server();
  s.id = doc.get("id").asString();
  s.name = doc.get("name").asString();
  s.status = doc.get("status").asString();
  s.flavorID = doc.get("flavor").get("id").asString();
  s.availabilityZone = doc.get("OS-EXT-AZ:availability_zone").asString();
  s.accessIPv4 = doc.get("accessIPv4").asString();
  s.accessIPv6 = doc.get("accessIPv6").asString();
  s.hostname = doc.get("metadata").get("hostname").asString();
  const addresses = doc.get("addresses");
  const names = addresses.keys();
  names.sort();
  for (let i = 0; i < names.length; i++) {
    const net = new ServerNetwork();
    net.name = names[i];
    const list = addresses.get(names[i]);
    for (let k = 0; k < list.length; k++) {
      const a = new ServerAddress();
      a.address = list.at(k).get("addr").asString();
      a.kind = list.at(k).get("OS-EXT-IPS:type").asString();
      net.addresses.push(a);
    }
    s.networks.push(net);
  }
  return s;
}

export class ServerLookup {
  /** null when the node has no server. */
  server: Server | null = null;
  error: PluginError | null = null;
}

export class ProviderID {
  serverID: string = "";
  region: string = "";
  error: PluginError | null = null;
}

/** OCCM's instanceIDFromProviderID: `openstack://<region>/<id>` (region may be empty), or a bare ID. */
export function parseProviderID(providerID: string): ProviderID {
  const out = new ProviderID();
  const full = providerID.indexOf("://") < 0 ? SCHEME + providerID : providerID;
  const rest = full.startsWith(SCHEME) ? full.substring(SCHEME.length) : "";
  const slash = rest.indexOf("/");
  const id = slash < 0 ? "" : rest.substring(slash + 1);
  if (slash < 0 || id == "" || id.indexOf("/") >= 0) {
    out.error = invalid('ProviderID "' + providerID + '" didn\'t match expected format "openstack://region/InstanceID"');
    return out;
  }
  out.region = rest.substring(0, slash);
  out.serverID = id;
  return out;
}

export function providerIDOf(server: Server, region: string, regional: bool): string {
  return SCHEME + (regional ? region : "") + "/" + server.id;
}

/** The server behind a node: by providerID when it has one, else by name. */
export function lookupNode(api: Api, node: Node, region: string): ServerLookup {
  if (node.providerID == "") return serverByName(api, node.name);
  return serverByProviderID(api, node.providerID, region);
}

/** The server ID of a providerID of this region; an `Invalid` error for another form or another region. */
export function serverIDIn(providerID: string, region: string): ProviderID {
  const id = parseProviderID(providerID);
  if (id.error === null && id.region != "" && id.region != region) {
    id.error = invalid('ProviderID "' + providerID + '" didn\'t match supported region "' + region + '"');
  }
  return id;
}

export function serverByProviderID(api: Api, providerID: string, region: string): ServerLookup {
  const out = new ServerLookup();
  const id = serverIDIn(providerID, region);
  if (id.error !== null) {
    out.error = id.error;
  } else {
    const answer = get(api.compute, "/servers/" + encodeComponent(id.serverID));
    if (!answer.notFound) readOne(answer, out);
  }
  return out;
}

function readOne(answer: Answer, out: ServerLookup): void {
  if (!answer.ok) out.error = answer.error;
  else out.server = parseServer(answer.doc!.get("server"));
}

/** The one server named exactly `name` (nova's name filter is a regular expression: anchored and quoted). */
export function serverByName(api: Api, name: string): ServerLookup {
  const out = new ServerLookup();
  const answer = get(api.compute, "/servers/detail?name=" + encodeComponent("^" + quoteMeta(name) + "$"));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const list = answer.doc!.get("servers");
  if (list.length > 1) out.error = nameTaken(name);
  else if (list.length == 1) out.server = parseServer(list.at(0));
  return out;
}

export function nameTaken(name: string): PluginError {
  return internal("more than one server is named " + name);
}

/** Go's regexp.QuoteMeta. */
export function quoteMeta(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) out += "\\";
    out += c;
  }
  return out;
}

export function notFound(node: Node): PluginError {
  return instanceNotFound("no server for node " + node.name + (node.providerID != "" ? " (" + node.providerID + ")" : ""));
}

export class TextResult {
  value: string = "";
  error: PluginError | null = null;
}

/** OCCM's srvInstanceType at nova's base microversion: the flavor's name, or its ID when the name is no label value. */
export function instanceTypeOf(api: Api, server: Server): TextResult {
  const out = new TextResult();
  const answer = server.flavorID == "" ? new Answer() : get(api.compute, "/flavors/" + encodeComponent(server.flavorID));
  if (server.flavorID == "" || !answer.ok) {
    const why = answer.error !== null ? ": " + answer.error!.message : "";
    out.error = internal("server " + server.id + ": flavor original_name/id not found" + why);
    return out;
  }
  const flavor = answer.doc!.get("flavor");
  const name = flavor.get("name").asString();
  out.value = isLabelValue(name) ? name : flavor.get("id").asString();
  return out;
}

/** A Kubernetes label value: at most 63 characters, alphanumerics with - _ . inside. */
export function isLabelValue(v: string): bool {
  if (v.length > 63) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    const inner = c == 0x2d || c == 0x5f || c == 0x2e;
    if (!alnum && (!inner || i == 0 || i == v.length - 1)) return false;
  }
  return true;
}

/** OCCM's SanitizeLabel: runs of other characters become "-", trimmed of -_. at the ends, at most 63 long. */
export function sanitizeLabel(input: string): string {
  let out = "";
  let replaced = false;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    const keep =
      (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2d || c == 0x5f || c == 0x2e;
    if (keep) {
      out += input.charAt(i);
      replaced = false;
    } else if (!replaced) {
      out += "-";
      replaced = true;
    }
  }
  let start = 0;
  let end = out.length;
  while (start < end && "-_.".indexOf(out.charAt(start)) >= 0) start++;
  while (end > start && "-_.".indexOf(out.charAt(end - 1)) >= 0) end--;
  out = out.substring(start, end);
  return out.length > 63 ? out.substring(0, 63) : out;
}
