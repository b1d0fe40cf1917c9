// Routes as OCCM keeps them: the extra routes of the Neutron router in [Route] router-id, `<cidr> via <node IP>`,
// added and removed atomically (extraroute-atomic's add_extraroutes / remove_extraroutes) or, without that extension,
// by rewriting the router's route list; and, with allowed-address-pairs, the destination allowed on the target
// node's port, so that port security passes the routed traffic. The router belongs to the CCM's own cluster
// (--cluster-name): another cluster's listRoutes sees no routes and its createRoute is refused.
import {
  CloudConfig,
  encodeComponent,
  internal,
  invalid,
  isIPv6,
  JsonValue,
  NodeAddress,
  NodeAddressType,
  PluginError,
  Route,
} from "@wasm-ccm/plugin-sdk";
import { attachedPorts, nodeAddresses, Port } from "./addresses";
import { Api, get, put } from "./api";
import { Config } from "./config";
import { parseServer, Server, serverByName } from "./servers";

class Extensions {
  known: bool = false;
  atomic: bool = false;
  extraroute: bool = false;
  addressPairs: bool = false;
}

// Neutron's extensions, asked once per instance (OCCM asks once at start).
const extensions = new Extensions();

function loadExtensions(api: Api): PluginError | null {
  if (extensions.known) return null;
  const answer = get(api.network, "/extensions");
  if (!answer.ok) return answer.error;
  const list = answer.doc!.get("extensions");
  for (let i = 0; i < list.length; i++) {
    const alias = list.at(i).get("alias").asString();
    if (alias == "extraroute-atomic") extensions.atomic = true;
    else if (alias == "extraroute") extensions.extraroute = true;
    else if (alias == "allowed-address-pairs") extensions.addressPairs = true;
  }
  extensions.known = true;
  return null;
}

/** Why routes cannot be served for `clusterName`; null when they can. */
function checkRoutes(api: Api, cfg: Config, clusterName: string): PluginError | null {
  if (cfg.routerID == "") return invalid("routes need [Route] router-id in the cloud config");
  if (clusterName != CloudConfig.clusterName()) {
    return invalid("router " + cfg.routerID + " serves cluster " + CloudConfig.clusterName() + ", not " + clusterName);
  }
  const error = loadExtensions(api);
  if (error !== null) return error;
  if (!extensions.atomic && !extensions.extraroute) return internal("Neutron has no extraroute extension: no routes");
  return null;
}

export class RoutesResult {
  routes: Route[] = [];
  error: PluginError | null = null;
}

export function listRoutes(api: Api, cfg: Config, clusterName: string): RoutesResult {
  const out = new RoutesResult();
  if (cfg.routerID != "" && clusterName != CloudConfig.clusterName()) return out;
  out.error = checkRoutes(api, cfg, clusterName);
  if (out.error !== null) return out;
  const router = get(api.network, "/routers/" + encodeComponent(cfg.routerID));
  if (!router.ok) {
    out.error = router.error;
    return out;
  }
  const routes = router.doc!.get("router").get("routes");
  if (routes.length == 0) return out;
  const servers = allServers(api);
  if (servers.error !== null) {
    out.error = servers.error;
    return out;
  }
  for (let i = 0; i < routes.length; i++) {
    const r = new Route();
    r.destinationCIDR = routes.at(i).get("destination").asString();
    r.name = r.destinationCIDR;
    const nexthop = routes.at(i).get("nexthop").asString();
    const owner = serverWithAddress(servers.servers, nexthop);
    // As OCCM: a next hop no node has is a blackhole, its target the address itself.
    r.targetNode = owner === null ? nexthop : owner.name;
    r.blackhole = owner === null;
    out.routes.push(r);
  }
  return out;
}

class ServersResult {
  servers: Server[] = [];
  error: PluginError | null = null;
}

const PAGE = 1000;

/** Every server of the project, page by page (nova's default page is its max_limit, 1000). */
function allServers(api: Api): ServersResult {
  const out = new ServersResult();
  let marker = "";
  while (true) {
    const query = "?limit=" + PAGE.toString() + (marker == "" ? "" : "&marker=" + encodeComponent(marker));
    const answer = get(api.compute, "/servers/detail" + query);
    if (!answer.ok) {
      out.error = answer.error;
      return out;
    }
    const list = answer.doc!.get("servers");
    for (let i = 0; i < list.length; i++) out.servers.push(parseServer(list.at(i)));
    if (list.length < PAGE) return out;
    marker = list.at(list.length - 1).get("id").asString();
  }
}

function serverWithAddress(servers: Server[], address: string): Server | null {
  for (let i = 0; i < servers.length; i++) {
    const s = servers[i];
    if (s.accessIPv4 == address || s.accessIPv6 == address) return s;
    for (let n = 0; n < s.networks.length; n++) {
      const list = s.networks[n].addresses;
      for (let k = 0; k < list.length; k++) if (list[k].address == address) return s;
    }
  }
  return null;
}

class NextHop {
  address: string = "";
  error: PluginError | null = null;
}

/** The target node's InternalIP of the destination's family: from the route, else from its server (by name). */
function nextHopOf(api: Api, cfg: Config, route: Route): NextHop {
  const out = new NextHop();
  const v6 = isIPv6(route.destinationCIDR);
  out.address = internalIPOf(route.targetNodeAddresses, v6);
  if (out.address != "") return out;
  const found = serverByName(api, route.targetNode);
  if (found.error !== null) {
    out.error = found.error;
    return out;
  }
  const server = found.server;
  if (server !== null) {
    const ports = attachedPorts(api, server.id);
    if (ports.error !== null) {
      out.error = ports.error;
      return out;
    }
    out.address = internalIPOf(nodeAddresses(server, ports.ports, cfg), v6);
  }
  if (out.address == "") out.error = internal("no InternalIP address found for node " + route.targetNode);
  return out;
}

function internalIPOf(addresses: NodeAddress[], v6: bool): string {
  for (let i = 0; i < addresses.length; i++) {
    const a = addresses[i];
    if (a.type == NodeAddressType.InternalIP && isIPv6(a.address) == v6) return a.address;
  }
  return "";
}

export function createRoute(api: Api, cfg: Config, clusterName: string, route: Route): PluginError | null {
  const error = checkRoutes(api, cfg, clusterName);
  if (error !== null) return error;
  const hop = nextHopOf(api, cfg, route);
  if (hop.error !== null) return hop.error;
  const changed = changeRoute(api, cfg, route.destinationCIDR, hop.address, true);
  if (changed !== null) return changed;
  const pairError = updateAddressPair(api, cfg, hop.address, route.destinationCIDR, true);
  // Undone as OCCM undoes it: the route without its address pair would route traffic port security drops.
  if (pairError !== null) changeRoute(api, cfg, route.destinationCIDR, hop.address, false);
  return pairError;
}

export function deleteRoute(api: Api, cfg: Config, clusterName: string, route: Route): PluginError | null {
  const error = checkRoutes(api, cfg, clusterName);
  if (error !== null) return error;
  // A blackhole's target is its next hop: no node to ask, no port to update.
  if (route.blackhole) return changeRoute(api, cfg, route.destinationCIDR, route.targetNode, false);
  const hop = nextHopOf(api, cfg, route);
  if (hop.error !== null) return hop.error;
  const changed = changeRoute(api, cfg, route.destinationCIDR, hop.address, false);
  if (changed !== null) return changed;
  return updateAddressPair(api, cfg, hop.address, route.destinationCIDR, false);
}

function routeJson(destination: string, nexthop: string): JsonValue {
  return JsonValue.newObject().set("destination", JsonValue.ofString(destination)).set("nexthop", JsonValue.ofString(nexthop));
}

/** Adds or removes `<destination> via <nexthop>` on the router (both idempotent). */
function changeRoute(api: Api, cfg: Config, destination: string, nexthop: string, adding: bool): PluginError | null {
  const path = "/routers/" + encodeComponent(cfg.routerID);
  if (extensions.atomic) {
    const routes = JsonValue.newArray().push(routeJson(destination, nexthop));
    const body = JsonValue.newObject().set("router", JsonValue.newObject().set("routes", routes));
    return put(api.network, path + (adding ? "/add_extraroutes" : "/remove_extraroutes"), body).error;
  }
  // Without extraroute-atomic: read, change and write the whole list (another writer in between is lost, as in OCCM).
  const router = get(api.network, path);
  if (!router.ok) return router.error;
  const current = router.doc!.get("router").get("routes");
  const next = JsonValue.newArray();
  let present = false;
  for (let i = 0; i < current.length; i++) {
    const r = current.at(i);
    const same = r.get("destination").asString() == destination && r.get("nexthop").asString() == nexthop;
    if (same) present = true;
    if (!same || adding) next.push(r);
  }
  if (present == adding) return null;
  if (adding) next.push(routeJson(destination, nexthop));
  return put(api.network, path, JsonValue.newObject().set("router", JsonValue.newObject().set("routes", next))).error;
}

/** Allows (or stops allowing) `cidr` on the next hop's port in the router's networks, as OCCM does. */
function updateAddressPair(api: Api, cfg: Config, address: string, cidr: string, adding: bool): PluginError | null {
  if (!extensions.addressPairs) return null;
  const found = portOf(api, cfg, address);
  if (found.error !== null) return found.error;
  const port = found.port;
  if (port === null) return internal("no port with address " + address + " on the networks of router " + cfg.routerID);
  if (!port.get("port_security_enabled").asBool(true)) return null;
  const pairs = port.get("allowed_address_pairs");
  const next = JsonValue.newArray();
  let present = false;
  for (let i = 0; i < pairs.length; i++) {
    const same = pairs.at(i).get("ip_address").asString() == cidr;
    if (same) present = true;
    if (!same) next.push(pairs.at(i));
  }
  if (present == adding) return null;
  if (adding) next.push(JsonValue.newObject().set("ip_address", JsonValue.ofString(cidr)));
  const body = JsonValue.newObject().set("port", JsonValue.newObject().set("allowed_address_pairs", next));
  return put(api.network, "/ports/" + encodeComponent(port.get("id").asString()), body).error;
}

class PortLookup {
  port: JsonValue | null = null;
  error: PluginError | null = null;
}

/** The port holding `address` on one of the router's networks (OCCM's getPortByIP). */
function portOf(api: Api, cfg: Config, address: string): PortLookup {
  const out = new PortLookup();
  const routerPorts = attachedPorts(api, cfg.routerID);
  if (routerPorts.error !== null) {
    out.error = routerPorts.error;
    return out;
  }
  const networks = networksOf(routerPorts.ports);
  for (let i = 0; i < networks.length; i++) {
    const query = "fixed_ips=" + encodeComponent("ip_address=" + address) + "&network_id=" + encodeComponent(networks[i]);
    const answer = get(api.network, "/ports?" + query);
    if (!answer.ok) {
      out.error = answer.error;
      return out;
    }
    const list = answer.doc!.get("ports");
    if (list.length == 1) {
      out.port = list.at(0);
      return out;
    }
  }
  return out;
}

function networksOf(ports: Port[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < ports.length; i++) {
    if (ports[i].networkID != "" && !out.includes(ports[i].networkID)) out.push(ports[i].networkID);
  }
  return out;
}
