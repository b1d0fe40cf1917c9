// routes: one cloud route per destination CIDR, named from a hash of the cluster and the CIDR (so creating it again
// finds the same name) and tagged with the cluster and the target node's name.
import {
  CreateRouteRequest,
  CreateRouteResponse,
  DeleteRouteRequest,
  DeleteRouteResponse,
  JsonValue,
  ListRoutesRequest,
  ListRoutesResponse,
  PluginError,
  Query,
  Route,
  internal,
  urlPath,
} from "@wasm-ccm/plugin-sdk";
import { Api, cloudError } from "./api";
import { findByName, live } from "./instances";

/** "r-" + 16 hex digits of FNV-1a over "<cluster>/<cidr>": a valid, stable cloud name of any length of input. */
export function routeName(clusterName: string, destinationCIDR: string): string {
  const key = clusterName + "/" + destinationCIDR;
  let h: u64 = 0xcbf29ce484222325;
  for (let i = 0; i < key.length; i++) h = (h ^ <u64>key.charCodeAt(i)) * 0x100000001b3;
  let hex = h.toString(16);
  while (hex.length < 16) hex = "0" + hex;
  return "r-" + hex;
}

export function listRoutes(api: Api, req: ListRoutesRequest, out: ListRoutesResponse): PluginError | null {
  const res = api.client.get("/routes" + new Query().add("tag", "cluster=" + req.clusterName).toString());
  if (!res.ok) return cloudError("list routes", res);
  const doc = res.json();
  if (doc === null) return internal("list routes: the answer is not JSON");
  const items = doc.get("items");
  for (let i = 0; i < items.length; i++) {
    const r = new Route();
    r.name = items.at(i).get("name").asString();
    r.destinationCIDR = items.at(i).get("destinationCidr").asString();
    r.targetNode = items.at(i).get("tags").get("node").asString();
    r.blackhole = items.at(i).get("blackhole").asBool();
    out.routes.push(r);
  }
  return null;
}

export function createRoute(api: Api, req: CreateRouteRequest, out: CreateRouteResponse): PluginError | null {
  const found = findByName(api, req.route.targetNode);
  if (found.error !== null) return found.error;
  const inst = live(found);
  if (inst === null) return internal("create route: node " + req.route.targetNode + " has no instance");
  const name = routeName(req.clusterName, req.route.destinationCIDR);
  const body = JsonValue.newObject()
    .set("name", JsonValue.ofString(name))
    .set("destinationCidr", JsonValue.ofString(req.route.destinationCIDR))
    .set("targetInstanceId", JsonValue.ofString(inst.get("id").asString()))
    .set(
      "tags",
      JsonValue.newObject()
        .set("cluster", JsonValue.ofString(req.clusterName))
        .set("node", JsonValue.ofString(req.route.targetNode)),
    );
  const res = api.client.post("/routes", body);
  if (res.ok || (res.status == 409 && res.error === null && api.find(urlPath(["routes", name]), name).value !== null)) {
    return null; // created, or created before under the same name
  }
  return cloudError("create route " + name, res);
}

export function deleteRoute(api: Api, req: DeleteRouteRequest, out: DeleteRouteResponse): PluginError | null {
  const name = routeName(req.clusterName, req.route.destinationCIDR);
  const res = api.client.delete(urlPath(["routes", name]));
  if (res.ok || (res.status == 404 && res.error === null)) return null;
  return cloudError("delete route " + name, res);
}
