// Many nodes in few Nova and Neutron requests, for the batched InstancesV2 methods (ABI 1.5): every node's server
// from one listing of the project's servers (GET /servers/detail, page by page), matched by the providerID's server
// ID or by name (names compare lower-cased, as nova's name filter on MySQL matches them; two servers of one name are
// the per-node call's error), and for instanceMetadata each flavor once and the ports of up to PORTS_PER_REQUEST
// servers per Neutron request. Each node gets the ServerLookup lookupNode gives it: a server missing from the listing
// does not exist, and a failed request fails the nodes it asked about.
import { encodeComponent, internal, JsonValue, Node, PluginError } from "@wasm-ccm/plugin-sdk";
import { listPorts, PortsResult } from "./addresses";
import { Api, get } from "./api";
import {
  instanceTypeOf,
  nameTaken,
  parseServer,
  Server,
  ServerLookup,
  serverByName,
  serverByProviderID,
  serverIDIn,
  TextResult,
} from "./servers";

const PORTS_PER_REQUEST = 40;
/** Pages of 1,000 servers (nova's default max_limit) a listing may take before it is an error. */
const MAX_PAGES = 100;

class ServersResult {
  servers: Server[] = [];
  error: PluginError | null = null;
}

/** GET /servers/detail with `query`, following nova's pages (marker = the last server of a page). */
function listServers(api: Api, query: string): ServersResult {
  const out = new ServersResult();
  let marker = "";
  for (let page = 0; page < MAX_PAGES; page++) {
    let params = query;
    if (marker != "") params += (params != "" ? "&" : "") + "marker=" + encodeComponent(marker);
    const answer = get(api.compute, "/servers/detail" + (params != "" ? "?" + params : ""));
    if (!answer.ok) {
      out.error = answer.error;
      return out;
    }
    const list = answer.doc!.get("servers");
    for (let i = 0; i < list.length; i++) out.servers.push(parseServer(list.at(i)));
    if (list.length == 0 || !hasNext(answer.doc!.get("servers_links"))) return out;
    marker = out.servers[out.servers.length - 1].id;
  }
  out.error = internal("nova listed more than " + MAX_PAGES.toString() + " pages of servers");
  return out;
}

function hasNext(links: JsonValue): bool {
  for (let i = 0; i < links.length; i++) if (links.at(i).get("rel").asString() == "next") return true;
  return false;
}

/** Lookups waiting on one key (a server ID, or a lower-cased node name); several nodes may share a key. */
class Pending {
  keys: string[] = [];
  waiting: Map<string, ServerLookup[]> = new Map();

  add(key: string, lookup: ServerLookup): void {
    if (!this.waiting.has(key)) {
      this.keys.push(key);
      this.waiting.set(key, []);
    }
    this.waiting.get(key).push(lookup);
  }
}

function settle(lookups: ServerLookup[], found: ServerLookup): void {
  for (let n = 0; n < lookups.length; n++) {
    lookups[n].server = found.server;
    lookups[n].error = found.error;
  }
}

/** The servers of `ids` and `names` from one listing of the project's servers. */
function fillFromListing(api: Api, ids: Pending, names: Pending): void {
  const all = listServers(api, "");
  const byId = new Map<string, Server>();
  const byName = new Map<string, Server[]>();
  for (let i = 0; i < all.servers.length; i++) {
    const server = all.servers[i];
    byId.set(server.id, server);
    const key = server.name.toLowerCase();
    if (!byName.has(key)) byName.set(key, []);
    byName.get(key).push(server);
  }
  for (let k = 0; k < ids.keys.length; k++) {
    const found = new ServerLookup();
    found.error = all.error;
    if (all.error === null && byId.has(ids.keys[k])) found.server = byId.get(ids.keys[k]);
    settle(ids.waiting.get(ids.keys[k]), found);
  }
  for (let k = 0; k < names.keys.length; k++) {
    const name = names.keys[k];
    const servers = byName.has(name) ? byName.get(name) : new Array<Server>();
    const found = new ServerLookup();
    if (all.error !== null) found.error = all.error;
    else if (servers.length > 1) found.error = nameTaken(name);
    else if (servers.length == 1) found.server = servers[0];
    settle(names.waiting.get(name), found);
  }
}

/** One ServerLookup per node, in order: the per-node request when the nodes ask about one server, else one listing. */
export function lookupNodes(api: Api, nodes: Node[], region: string): ServerLookup[] {
  const out = new Array<ServerLookup>();
  const ids = new Pending();
  const providerIDs = new Map<string, string>();
  const names = new Pending();
  let aName = "";
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const one = new ServerLookup();
    out.push(one);
    if (node.providerID == "") {
      names.add(node.name.toLowerCase(), one);
      aName = node.name;
      continue;
    }
    const id = serverIDIn(node.providerID, region);
    if (id.error !== null) {
      one.error = id.error;
      continue;
    }
    ids.add(id.serverID, one);
    providerIDs.set(id.serverID, node.providerID);
  }
  if (ids.keys.length + names.keys.length > 1) {
    fillFromListing(api, ids, names);
  } else if (ids.keys.length == 1) {
    settle(ids.waiting.get(ids.keys[0]), serverByProviderID(api, providerIDs.get(ids.keys[0]), region));
  } else if (names.keys.length == 1) {
    settle(names.waiting.get(names.keys[0]), serverByName(api, aName));
  }
  return out;
}

/** What instanceMetadata reads besides the server, for the servers of a batch: flavors once, ports in few requests. */
export class MetadataParts {
  private types: Map<string, TextResult> = new Map();
  private ports: Map<string, PortsResult> = new Map();

  constructor(api: Api, lookups: ServerLookup[]) {
    const ids = new Array<string>();
    for (let i = 0; i < lookups.length; i++) {
      const server = lookups[i].server;
      if (server !== null && !this.ports.has(server.id)) {
        ids.push(server.id);
        this.ports.set(server.id, new PortsResult());
      }
    }
    for (let start = 0; start < ids.length; start += PORTS_PER_REQUEST) {
      const end = min(start + PORTS_PER_REQUEST, ids.length);
      let query = "";
      for (let k = start; k < end; k++) query += (k > start ? "&" : "") + "device_id=" + encodeComponent(ids[k]);
      const found = listPorts(api, query);
      for (let k = start; k < end; k++) this.ports.get(ids[k]).error = found.error;
      for (let p = 0; p < found.ports.length; p++) {
        const port = found.ports[p];
        if (this.ports.has(port.deviceID)) this.ports.get(port.deviceID).ports.push(port);
      }
    }
  }

  /** The server's instance type; a flavor that failed is asked again per server, for that server's own error. */
  typeOf(api: Api, server: Server): TextResult {
    if (this.types.has(server.flavorID)) return this.types.get(server.flavorID);
    const type = instanceTypeOf(api, server);
    if (type.error === null) this.types.set(server.flavorID, type);
    return type;
  }

  portsOf(server: Server): PortsResult {
    return this.ports.get(server.id);
  }
}
