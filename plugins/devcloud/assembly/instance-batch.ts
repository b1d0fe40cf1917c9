// Many nodes at once, for the batched InstancesV2 calls (ABI 1.5): the nodes with a providerID in
// GET /v1/instances/by-ids, the others in GET /v1/instances/by-names, at most 100 per request, so initializing 50
// nodes costs one cloud request instead of 50. Each node gets the Lookup lookupNode would have given it: an instance
// left out of devcloud's answer does not exist, and a failed request fails the nodes it asked about.
import { JsonKind, JsonValue, Node, PluginError, internal } from "@wasm-ccm/plugin-sdk";
import { Api, cloudError } from "./api";
import { Lookup, instanceIdOf, nodeProblem } from "./instances";

/** devcloud's limit on ids or names per request. */
const PER_REQUEST = 100;

/** Fills `lookups[i]` with the instance whose `field` is `keys[i]`, PER_REQUEST keys per request. */
function fetchMany(api: Api, field: string, keys: string[], lookups: Lookup[]): void {
  for (let start = 0; start < keys.length; start += PER_REQUEST) {
    const end = min(start + PER_REQUEST, keys.length);
    let query = "";
    for (let i = start; i < end; i++) {
      query += (i > start ? "&" : "") + field + "=" + encodeURIComponent(keys[i]);
    }
    const what = "get instances by " + field + " (" + (end - start).toString() + ")";
    const res = api.get("/instances/by-" + field + "s?" + query);
    let failure: PluginError | null = null;
    const found = new Map<string, JsonValue>();
    if (!res.ok) {
      failure = cloudError(what, res);
    } else {
      const doc = res.json();
      const items = doc === null ? JsonValue.ofNull() : doc.get("items");
      if (items.kind != JsonKind.Array) failure = internal(what + ": devcloud answered a list that is not {items: [...]}");
      else for (let j = 0; j < items.length; j++) found.set(items.at(j).get(field).asString(), items.at(j));
    }
    for (let i = start; i < end; i++) {
      if (failure !== null) lookups[i].error = failure;
      else if (found.has(keys[i])) lookups[i].instance = found.get(keys[i]);
    }
  }
}

/** One Lookup per node, in order, from at most two kinds of request (by ids, by names). */
export function lookupNodes(api: Api, nodes: Node[]): Lookup[] {
  const out = new Array<Lookup>();
  const ids = new Array<string>();
  const byId = new Array<Lookup>();
  const names = new Array<string>();
  const byName = new Array<Lookup>();
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const one = new Lookup();
    out.push(one);
    one.error = nodeProblem(node);
    if (one.error !== null) continue;
    const id = instanceIdOf(node.providerID);
    if (id !== null) {
      ids.push(id);
      byId.push(one);
    } else {
      names.push(node.name);
      byName.push(one);
    }
  }
  fetchMany(api, "id", ids, byId);
  fetchMany(api, "name", names, byName);
  return out;
}
