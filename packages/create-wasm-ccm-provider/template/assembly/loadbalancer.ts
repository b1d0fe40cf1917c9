// loadBalancer: one cloud load balancer per Service, named from the Service UID as upstream's default name is, and
// tagged with the cluster and the Service UID. Ownership rule: the load balancer belongs to the Service whose UID
// its tags carry, in the cluster they name. A Service deleted and re-created under the same name has a new UID and
// gets a new load balancer; `getLoadBalancer` answers `exists: false` for anything the tags do not match, and
// `ensureLoadBalancerDeleted` never deletes what is not the Service's.
import {
  EnsureLoadBalancerDeletedRequest,
  EnsureLoadBalancerDeletedResponse,
  EnsureLoadBalancerRequest,
  EnsureLoadBalancerResponse,
  GetLoadBalancerNameRequest,
  GetLoadBalancerNameResponse,
  GetLoadBalancerRequest,
  GetLoadBalancerResponse,
  JsonValue,
  LoadBalancerIngress,
  LoadBalancerStatus,
  Node,
  PluginError,
  Service,
  UpdateLoadBalancerRequest,
  UpdateLoadBalancerResponse,
  internal,
  invalid,
  urlPath,
} from "@wasm-ccm/plugin-sdk";
import { Api, cloudError } from "./api";
import { findNode, live } from "./instances";

/** "a" + the UID without dashes, at most 32 characters (upstream's cloudprovider.DefaultLoadBalancerName). */
export function nameOf(service: Service): string {
  const name = "a" + service.uid.replaceAll("-", "");
  return name.length > 32 ? name.substring(0, 32) : name;
}

function owned(lb: JsonValue, clusterName: string, service: Service): bool {
  const tags = lb.get("tags");
  return tags.get("cluster").asString() == clusterName && tags.get("service-uid").asString() == service.uid;
}

function statusOf(lb: JsonValue, out: LoadBalancerStatus): void {
  const ingress = new LoadBalancerIngress();
  ingress.ip = lb.get("vip").asString();
  out.ingress = [ingress];
}

export function getLoadBalancerName(
  api: Api,
  req: GetLoadBalancerNameRequest,
  out: GetLoadBalancerNameResponse,
): PluginError | null {
  out.name = nameOf(req.service);
  return null;
}

export function getLoadBalancer(api: Api, req: GetLoadBalancerRequest, out: GetLoadBalancerResponse): PluginError | null {
  const name = nameOf(req.service);
  const found = api.find(urlPath(["load-balancers", name]), "get load balancer " + name);
  if (found.error !== null) return found.error;
  const lb = found.value;
  out.exists = lb !== null && owned(lb, req.clusterName, req.service);
  if (lb !== null && out.exists) statusOf(lb, out.status);
  return null;
}

// The instance ids behind the backend nodes (by providerID, else by name) into `ids`; nodes without a live instance
// are left out.
function backendIds(api: Api, nodes: Node[], ids: string[]): PluginError | null {
  for (let i = 0; i < nodes.length; i++) {
    const found = findNode(api, nodes[i]);
    if (found.error !== null) return found.error;
    const inst = live(found);
    if (inst !== null) ids.push(inst.get("id").asString());
  }
  return null;
}

function specOf(clusterName: string, service: Service, ids: string[]): JsonValue {
  const listeners = JsonValue.newArray();
  for (let i = 0; i < service.ports.length; i++) {
    const p = service.ports[i];
    listeners.push(
      JsonValue.newObject()
        .set("protocol", JsonValue.ofString(p.protocol))
        .set("port", JsonValue.ofNumber(p.port))
        .set("nodePort", JsonValue.ofNumber(p.nodePort)),
    );
  }
  const backends = JsonValue.newArray();
  for (let i = 0; i < ids.length; i++) backends.push(JsonValue.ofString(ids[i]));
  const ranges = JsonValue.newArray();
  for (let i = 0; i < service.loadBalancerSourceRanges.length; i++) {
    ranges.push(JsonValue.ofString(service.loadBalancerSourceRanges[i]));
  }
  const tags = JsonValue.newObject()
    .set("cluster", JsonValue.ofString(clusterName))
    .set("service-uid", JsonValue.ofString(service.uid));
  return JsonValue.newObject()
    .set("listeners", listeners)
    .set("backendInstanceIds", backends)
    .set("sourceRanges", ranges)
    .set(
      "healthCheckNodePort",
      service.healthCheckNodePort > 0 ? JsonValue.ofNumber(service.healthCheckNodePort) : JsonValue.ofNull(),
    )
    .set("tags", tags)
    .set("description", JsonValue.ofString(service.namespace + "/" + service.name));
}

// Creates the load balancer or replaces its spec; fills `status` from the cloud's answer.
function apply(api: Api, clusterName: string, service: Service, nodes: Node[], status: LoadBalancerStatus): PluginError | null {
  const name = nameOf(service);
  const ids = new Array<string>();
  const failed = backendIds(api, nodes, ids);
  if (failed !== null) return failed;
  const spec = specOf(clusterName, service, ids);
  const found = api.find(urlPath(["load-balancers", name]), "get load balancer " + name);
  if (found.error !== null) return found.error;
  const existing = found.value;
  if (existing !== null && !owned(existing, clusterName, service)) {
    return invalid("load balancer " + name + " belongs to another cluster or Service; not taking it over");
  }
  const res =
    existing === null
      ? api.client.post("/load-balancers", spec.set("name", JsonValue.ofString(name)))
      : api.client.put(urlPath(["load-balancers", name]), spec);
  if (!res.ok) return cloudError((existing === null ? "create" : "update") + " load balancer " + name, res);
  const lb = res.json();
  if (lb === null) return internal("load balancer " + name + ": the answer is not JSON");
  statusOf(lb, status);
  return null;
}

export function ensureLoadBalancer(
  api: Api,
  req: EnsureLoadBalancerRequest,
  out: EnsureLoadBalancerResponse,
): PluginError | null {
  return apply(api, req.clusterName, req.service, req.nodes, out.status);
}

export function updateLoadBalancer(
  api: Api,
  req: UpdateLoadBalancerRequest,
  out: UpdateLoadBalancerResponse,
): PluginError | null {
  return apply(api, req.clusterName, req.service, req.nodes, new LoadBalancerStatus());
}

export function ensureLoadBalancerDeleted(
  api: Api,
  req: EnsureLoadBalancerDeletedRequest,
  out: EnsureLoadBalancerDeletedResponse,
): PluginError | null {
  const name = nameOf(req.service);
  const found = api.find(urlPath(["load-balancers", name]), "get load balancer " + name);
  if (found.error !== null) return found.error;
  const lb = found.value;
  if (lb === null || !owned(lb, req.clusterName, req.service)) return null; // gone, or never this Service's
  const res = api.client.delete(urlPath(["load-balancers", name]));
  if (res.ok || (res.status == 404 && res.error === null)) return null;
  return cloudError("delete load balancer " + name, res);
}
