// Pod-CIDR routes as devcloud routes. Each carries the cluster's tag (ListRoutes filters on it, so a cluster never sees
// or deletes another's routes) and the target node's name (devcloud routes point at instance ids; the route
// controller matches routes to nodes by name, and the tag saves a lookup per route).
import { JsonValue, Log, PluginError, Route, fields, instanceNotFound, internal } from "@wasm-ccm/plugin-sdk";
import { Api, CloudFailure, cloudError, tag } from "./api";
import { lookupById, lookupByName } from "./instances";
import { TAG_CLUSTER } from "./loadbalancer";
import { routeName } from "./names";

export const TAG_NODE = "k8s-node";

export class RouteList {
  routes: Route[] = [];
  error: PluginError | null = null;
}

export function listRoutes(api: Api, cluster: string): RouteList {
  const out = new RouteList();
  const list = api.listAll("/routes", "tag=" + encodeURIComponent(TAG_CLUSTER + "=" + cluster), "list routes");
  if (list.error !== null) {
    out.error = list.error;
    return out;
  }
  for (let i = 0; i < list.items.length; i++) {
    const item = list.items[i];
    const r = new Route();
    r.name = item.get("name").asString();
    r.destinationCIDR = item.get("destinationCidr").asString();
    r.blackhole = item.get("blackhole").asBool();
    r.targetNode = tag(item, "tags", TAG_NODE);
    if (r.targetNode.length == 0) {
      // Created without the node tag (by hand, or by an older plugin): ask devcloud whose instance it is.
      const found = lookupById(api, item.get("targetInstanceId").asString());
      if (found.error !== null) {
        out.error = found.error;
        return out;
      }
      const inst = found.instance;
      if (inst !== null) r.targetNode = inst.get("name").asString();
    }
    out.routes.push(r);
  }
  return out;
}

export function createRoute(api: Api, cluster: string, nameHint: string, route: Route): PluginError | null {
  const node = route.targetNode;
  const found = lookupByName(api, node);
  if (found.error !== null) return found.error;
  const inst = found.instance;
  if (inst === null || found.gone) return instanceNotFound("route target node " + node + " has no devcloud instance");
  const id = inst.get("id").asString();
  const name = routeName(cluster, nameHint.length > 0 ? nameHint : node, route.destinationCIDR);
  const body = JsonValue.newObject()
    .set("name", JsonValue.ofString(name))
    .set("destinationCidr", JsonValue.ofString(route.destinationCIDR))
    .set("targetInstanceId", JsonValue.ofString(id))
    .set("description", JsonValue.ofString("pod CIDR of node " + node + " (cluster " + cluster + ")"))
    .set(
      "tags",
      JsonValue.newObject().set(TAG_CLUSTER, JsonValue.ofString(cluster)).set(TAG_NODE, JsonValue.ofString(node)),
    );
  const res = api.post("/routes", body);
  if (res.status == 201) {
    Log.info("created route", fields().set("name", name).set("node", node).set("cidr", route.destinationCIDR));
    return null;
  }
  if (res.status == 409 && CloudFailure.of(res).code == "already_exists") {
    // Created before (a retried call): fine if it is the same route.
    const existing = api.get("/routes/" + encodeURIComponent(name));
    if (!existing.ok) return cloudError("get route " + name, existing);
    const doc = existing.json();
    if (
      doc !== null &&
      doc.get("destinationCidr").asString() == route.destinationCIDR &&
      doc.get("targetInstanceId").asString() == id
    ) {
      return null;
    }
    return internal("route " + name + " exists with another destination or target");
  }
  return cloudError("create route " + name + " (" + route.destinationCIDR + " via " + node + ")", res);
}

export function deleteRoute(api: Api, cluster: string, route: Route): PluginError | null {
  let name = route.name;
  if (name.length == 0) {
    // Upstream passes routes as ListRoutes gave them; without a name, find it by destination and target.
    const list = listRoutes(api, cluster);
    if (list.error !== null) return list.error;
    for (let i = 0; i < list.routes.length; i++) {
      const r = list.routes[i];
      if (r.destinationCIDR == route.destinationCIDR && r.targetNode == route.targetNode) name = r.name;
    }
    if (name.length == 0) return null;
  }
  const res = api.delete("/routes/" + encodeURIComponent(name));
  if (res.status == 204 || (res.status == 404 && res.error === null)) return null;
  return cloudError("delete route " + name, res);
}
