// Services of type LoadBalancer as devcloud load balancers. One LB per Service, named <cluster>-<namespace>-<name>
// (shortened, see names.ts) and tagged with the cluster, the Service and its UID: GetLoadBalancer and
// EnsureLoadBalancerDeleted only ever see or touch LBs carrying this cluster's name and this Service's UID, and
// Ensure refuses to take over an LB another cluster or Service owns. Ensure is GET, then POST or a full PUT.
import {
  GetLoadBalancerResponse,
  HttpResult,
  IPMode,
  JsonValue,
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
  const lb = res.json();
  if (lb === null) return internal("get load balancer " + name + ": devcloud answered no JSON");
  if (!owned(lb, cluster, svc)) return null;
  out.exists = true;
  statusOf(lb, out.status);
  return null;
}

class Backends {
  ids: string[] = [];
  error: PluginError | null = null;
}

// Instance ids of the nodes the selector admits. A node without a providerID is looked up by name; one whose
// instance is gone is left out (devcloud refuses unknown ids, and the node is on its way out).
function backendsOf(api: Api, nodes: Node[], opts: LbOptions): Backends {
  const out = new Backends();
  const seen = new Set<string>();
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (!opts.selects(node)) continue;
    let id: string | null = null;
    if (node.providerID.length > 0) {
      id = instanceIdOf(node.providerID);
      if (id === null) Log.warn("node is not a devcloud instance; not a backend", fields().set("node", node.name));
    } else {
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
  return out;
}

function specOf(cluster: string, svc: Service, opts: LbOptions, backends: string[]): JsonValue {
  const listeners = JsonValue.newArray();
  for (let i = 0; i < svc.ports.length; i++) {
    const p = svc.ports[i];
    listeners.push(
      JsonValue.newObject()
        .set("protocol", JsonValue.ofString(p.protocol.length > 0 ? p.protocol : "TCP"))
        .set("port", JsonValue.ofNumber(p.port))
        .set("nodePort", JsonValue.ofNumber(p.nodePort)),
    );
  }
  const ids = JsonValue.newArray();
  for (let i = 0; i < backends.length; i++) ids.push(JsonValue.ofString(backends[i]));
  const ranges = JsonValue.newArray();
  for (let i = 0; i < svc.loadBalancerSourceRanges.length; i++) {
    ranges.push(JsonValue.ofString(svc.loadBalancerSourceRanges[i].trim()));
  }
  const tags = JsonValue.newObject()
    .set(TAG_CLUSTER, JsonValue.ofString(cluster))
    .set(TAG_SERVICE, JsonValue.ofString(serviceKey(svc)))
    .set(TAG_UID, JsonValue.ofString(svc.uid));
  return JsonValue.newObject()
    .set("listeners", listeners)
    .set("backendInstanceIds", ids)
    .set("sourceRanges", ranges)
    .set(
      "healthCheckNodePort",
      opts.healthCheckNodePort > 0 ? JsonValue.ofNumber(opts.healthCheckNodePort) : JsonValue.ofNull(),
    )
    .set("tags", tags)
    .set("description", JsonValue.ofString(opts.description));
}

// A new object with the same fields (the values are shared, not copied): building the spec a second time for the
// create path cost as much as the first, a JsonValue per backend.
function shallowCopy(obj: JsonValue): JsonValue {
  const out = JsonValue.newObject();
  const keys = obj.keys();
  for (let i = 0; i < keys.length; i++) out.set(keys[i], obj.get(keys[i]));
  return out;
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
  const spec = specOf(cluster, svc, opts, backends.ids);

  let res = api.get(lbPath(name));
  if (res.status == 404 && res.error === null) {
    if (!create) return internal("load balancer " + name + " does not exist; EnsureLoadBalancer creates it");
    // The spec plus name and VIP; `spec` itself stays as it is for the PUT below (a 409 from a concurrent create).
    const body = shallowCopy(spec).set("name", JsonValue.ofString(name));
    if (opts.vip.length > 0) body.set("vip", JsonValue.ofString(opts.vip));
    const created = api.post("/load-balancers", body);
    if (created.status == 201) {
      const lb = created.json();
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
  const lb = res.json();
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
  const updated = api.put(lbPath(name), spec);
  if (!updated.ok) return writeError("update load balancer " + name, updated, opts);
  const after = updated.json();
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
  const lb = res.json();
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
