// Services of type LoadBalancer as devcloud load balancers. One LB per Service, named <cluster>-<namespace>-<name>
// (shortened, see names.ts) and tagged with the cluster, the Service and its UID: GetLoadBalancer and
// EnsureLoadBalancerDeleted only ever see or touch LBs carrying this cluster's name and this Service's UID, and
// Ensure refuses to take over an LB another cluster or Service owns. Ensure is GET, then POST or a full PUT.
import {
  GetLoadBalancerResponse,
  HttpResult,
  IPMode,
  JsonValue,
  JsonWriter,
  LoadBalancerIngress,
  LoadBalancerStatus,
  Log,
  Node,
  PluginError,
  Service,
  fields,
  internal,
  invalid,
} from "@wasm-ccm/plugin-sdk";
import { Api, CloudFailure, cloudError, tag } from "./api";
import { instanceIdOf, lookupByName } from "./instances";
import { LbOptions, parseOptions } from "./lb-options";
import { loadBalancerName } from "./names";

export const TAG_CLUSTER = "k8s-cluster";
export const TAG_SERVICE = "k8s-service";
export const TAG_UID = "k8s-service-uid";
// The fields of a devcloud LB this provider reads; its list of backends (thousands of ids) is skipped unread.
const LB_FIELDS: string[] = ["vip", "tags"];

function lbPath(name: string): string {
  return "/load-balancers/" + encodeURIComponent(name);
}

function serviceKey(svc: Service): string {
  return svc.namespace + "/" + svc.name;
}

export function nameOf(cluster: string, svc: Service): string {
  return loadBalancerName(cluster, svc.namespace, svc.name);
}

function statusOf(lb: JsonValue, out: LoadBalancerStatus): void {
  const ingress = new LoadBalancerIngress();
  ingress.ip = lb.get("vip").asString();
  ingress.ipMode = IPMode.VIP;
  out.ingress = [ingress];
}

function owned(lb: JsonValue, cluster: string, svc: Service): bool {
  return tag(lb, "tags", TAG_CLUSTER) == cluster && tag(lb, "tags", TAG_UID) == svc.uid;
}

export function getLoadBalancer(
  api: Api,
  cluster: string,
  svc: Service,
  out: GetLoadBalancerResponse,
): PluginError | null {
  const name = nameOf(cluster, svc);
  const res = api.get(lbPath(name));
  if (res.status == 404 && res.error === null) return null;
  if (!res.ok) return cloudError("get load balancer " + name, res);
  const lb = res.jsonFields(LB_FIELDS);
  if (lb === null) return internal("get load balancer " + name + ": devcloud answered no JSON");
  if (!owned(lb, cluster, svc)) return null;
  out.exists = true;
  statusOf(lb, out.status);
  return null;
}

class Backends {
  ids: string[] = [];
  /** `ids` as a JSON array, UTF-8. */
  json: Uint8Array = new Uint8Array(0);
  error: PluginError | null = null;
}

// The backends of the last node list and selector this instance saw. While the host sends the same node objects (a
// kept list, ABI 1.2: all Services share it until a node changes) they are reused: working them out and writing them
// was about a thousand string operations and a sort per call. Only backends known from providerIDs alone are kept;
// a lookup by name depends on the cloud's state at the time.
class BackendsMemo {
  nodes: Node[] = [];
  selector: string = "";
  backends: Backends | null = null;
}
const memo = new BackendsMemo();

function sameNodes(a: Node[], b: Node[]): bool {
  if (a.length != b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (changetype<usize>(a[i]) != changetype<usize>(b[i])) return false;
  }
  return true;
}

// Instance ids of the nodes the selector admits. A node without a providerID is looked up by name; one whose
// instance is gone is left out (devcloud refuses unknown ids, and the node is on its way out).
function backendsOf(api: Api, nodes: Node[], opts: LbOptions): Backends {
  const kept = memo.backends;
  if (kept !== null && memo.selector == opts.selectorText && sameNodes(memo.nodes, nodes)) return kept;
  const out = new Backends();
  const seen = new Set<string>();
  let lookedUp = false;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (!opts.selects(node)) continue;
    let id: string | null = null;
    if (node.providerID.length > 0) {
      id = instanceIdOf(node.providerID);
      if (id === null) Log.warn("node is not a devcloud instance; not a backend", fields().set("node", node.name));
    } else {
      lookedUp = true;
      const found = lookupByName(api, node.name);
      if (found.error !== null) {
        out.error = found.error;
        return out;
      }
      const inst = found.instance;
      if (inst !== null && !found.gone) id = inst.get("id").asString();
    }
    if (id !== null && !seen.has(id)) {
      seen.add(id);
      out.ids.push(id);
    }
  }
  out.ids.sort();
  const w = new JsonWriter(16 + out.ids.length * 24);
  w.strings(out.ids);
  out.json = w.toBytes();
  if (!lookedUp) {
    memo.nodes = nodes;
    memo.selector = opts.selectorText;
    memo.backends = out;
  }
  return out;
}

// The load balancer's spec as devcloud's JSON, written straight to bytes; `name` (and the VIP asked for) only when
// creating it.
function specJson(cluster: string, svc: Service, opts: LbOptions, backends: Backends, name: string | null): Uint8Array {
  const w = new JsonWriter(512 + backends.json.length);
  w.beginObject();
  w.key("listeners");
  w.beginArray();
  for (let i = 0; i < svc.ports.length; i++) {
    const p = svc.ports[i];
    w.beginObject();
    w.key("protocol");
    w.string(p.protocol.length > 0 ? p.protocol : "TCP");
    w.key("port");
    w.i32(p.port);
    w.key("nodePort");
    w.i32(p.nodePort);
    w.endObject();
  }
  w.endArray();
  w.key("backendInstanceIds");
  w.rawBytes(backends.json);
  w.key("sourceRanges");
  w.beginArray();
  for (let i = 0; i < svc.loadBalancerSourceRanges.length; i++) w.string(svc.loadBalancerSourceRanges[i].trimStart().trimEnd());
  w.endArray();
  w.key("healthCheckNodePort");
  if (opts.healthCheckNodePort > 0) w.i32(opts.healthCheckNodePort);
  else w.null();
  w.key("tags");
  w.beginObject();
  w.key(TAG_CLUSTER);
  w.string(cluster);
  w.key(TAG_SERVICE);
  w.string(serviceKey(svc));
  w.key(TAG_UID);
  w.string(svc.uid);
  w.endObject();
  w.key("description");
  w.string(opts.description);
  if (name !== null) {
    w.key("name");
    w.string(name);
    if (opts.vip.length > 0) {
      w.key("vip");
      w.string(opts.vip);
    }
  }
  w.endObject();
  return w.view();
}

// devcloud's refusals that are about what the Service asked for become Invalid, naming the Service's field.
function writeError(what: string, res: HttpResult, opts: LbOptions): PluginError {
  if (res.error === null && (res.status == 400 || res.status == 409)) {
    const f = CloudFailure.of(res);
    if (f.field.startsWith("sourceRanges")) return invalid("spec.loadBalancerSourceRanges: " + f.message);
    if (f.field == "vip" || f.code == "vip_in_use") return invalid(opts.vipSource + " " + opts.vip + ": " + f.message);
  }
  return cloudError(what, res);
}

/**
 * EnsureLoadBalancer (create = true) and UpdateLoadBalancer (create = false: the LB must exist). Either way the LB
 * ends up with the full spec the Service and nodes call for; a PUT that changes nothing changes nothing in devcloud.
 */
export function ensureLoadBalancer(
  api: Api,
  cluster: string,
  svc: Service,
  nodes: Node[],
  create: bool,
  out: LoadBalancerStatus,
): PluginError | null {
  const opts = parseOptions(svc, cluster);
  if (opts.error !== null) return opts.error;
  const backends = backendsOf(api, nodes, opts);
  if (backends.error !== null) return backends.error;
  const name = nameOf(cluster, svc);

  let res = api.get(lbPath(name));
  if (res.status == 404 && res.error === null) {
    if (!create) return internal("load balancer " + name + " does not exist; EnsureLoadBalancer creates it");
    const created = api.sendJson("POST", "/load-balancers", specJson(cluster, svc, opts, backends, name));
    if (created.status == 201) {
      const lb = created.jsonFields(LB_FIELDS);
      if (lb === null) return internal("create load balancer " + name + ": devcloud answered no JSON");
      statusOf(lb, out);
      Log.info("created load balancer", fields().set("name", name).set("service", serviceKey(svc)));
      return null;
    }
    if (created.status != 409 || CloudFailure.of(created).code != "already_exists") {
      return writeError("create load balancer " + name, created, opts);
    }
    res = api.get(lbPath(name)); // created concurrently (another instance of this plugin): update it instead
  }
  if (!res.ok) return cloudError("get load balancer " + name, res);
  const lb = res.jsonFields(LB_FIELDS);
  if (lb === null) return internal("get load balancer " + name + ": devcloud answered no JSON");

  const ownerCluster = tag(lb, "tags", TAG_CLUSTER);
  const ownerService = tag(lb, "tags", TAG_SERVICE);
  if (ownerCluster != cluster || ownerService != serviceKey(svc)) {
    return internal(
      "load balancer " +
        name +
        " belongs to cluster " +
        quoted(ownerCluster) +
        " service " +
        quoted(ownerService) +
        ", not to " +
        serviceKey(svc) +
        " of cluster " +
        quoted(cluster) +
        "; not taking it over",
    );
  }
  const vip = lb.get("vip").asString();
  if (opts.vip.length > 0 && opts.vip != vip) {
    return invalid(
      opts.vipSource +
        " asks for " +
        opts.vip +
        " but load balancer " +
        name +
        " has " +
        vip +
        " (a VIP cannot change; delete and re-create the Service)",
    );
  }
  // Same cluster and Service, another UID: the LB of an earlier Service of that name; the PUT re-tags it.
  const updated = api.sendJson("PUT", lbPath(name), specJson(cluster, svc, opts, backends, null));
  if (!updated.ok) return writeError("update load balancer " + name, updated, opts);
  const after = updated.jsonFields(LB_FIELDS);
  if (after === null) return internal("update load balancer " + name + ": devcloud answered no JSON");
  statusOf(after, out);
  return null;
}

function quoted(s: string): string {
  return '"' + s + '"';
}

/** Deletes the Service's LB if there is one and it is this Service's; gone already (404) is success. */
export function ensureLoadBalancerDeleted(api: Api, cluster: string, svc: Service): PluginError | null {
  const name = nameOf(cluster, svc);
  const res = api.get(lbPath(name));
  if (res.status == 404 && res.error === null) return null;
  if (!res.ok) return cloudError("get load balancer " + name, res);
  const lb = res.jsonFields(LB_FIELDS);
  if (lb === null) return internal("get load balancer " + name + ": devcloud answered no JSON");
  if (!owned(lb, cluster, svc)) {
    Log.info("load balancer is not this Service's; left alone", fields().set("name", name).set("uid", svc.uid));
    return null;
  }
  const deleted = api.delete(lbPath(name));
  if (deleted.status == 204 || (deleted.status == 404 && deleted.error === null)) {
    Log.info("deleted load balancer", fields().set("name", name).set("service", serviceKey(svc)));
    return null;
  }
  return cloudError("delete load balancer " + name, deleted);
}
