// Where the OpenStack APIs are: the host logs in to Keystone and writes the token's service catalog, URLs only and
// already filtered to the region and interface, into the plugin's Extism config. The plugin sends its requests there
// without any auth header; the host attaches X-Auth-Token to every request to those endpoints.
import { invalid, JsonValue, PluginConfig, PluginError } from "@wasm-ccm/plugin-sdk";

/** The Extism config key the host writes the catalog under. */
export const CATALOG_KEY = "keystone.catalog";
// The host's key for the catalog of a keystone credentials entry named "openstack" (keystone.<credential>.catalog),
// read when CATALOG_KEY is absent: the plugin cannot list its config's keys.
const NAMED_CATALOG_KEY = "keystone.openstack.catalog";

export class Endpoints {
  /** The catalog's region: the region when cloud.conf names none. */
  region: string = "";
  /** nova's endpoint as the catalog gives it (it carries the API version, /v2.1). */
  compute: string = "";
  /** neutron's API root: the endpoint with v2.0, as gophercloud's network client has it. */
  network: string = "";
  /** octavia's API root: the endpoint with v2. */
  loadBalancer: string = "";
  /** octavia's endpoint without a version: GET there lists the API versions. */
  loadBalancerRoot: string = "";
}

export class EndpointsResult {
  endpoints: Endpoints = new Endpoints();
  error: PluginError | null = null;
}

/** The endpoints the plugin needs from the host's catalog; an error naming what is missing. */
export function readEndpoints(needLoadBalancer: bool): EndpointsResult {
  const out = new EndpointsResult();
  let key = CATALOG_KEY;
  let text = PluginConfig.get(key);
  if (text === null) {
    key = NAMED_CATALOG_KEY;
    text = PluginConfig.get(key);
  }
  if (text === null) {
    out.error = invalid(
      "no service catalog: the plugin's config has neither " + CATALOG_KEY + " nor " + NAMED_CATALOG_KEY +
        " (give the host a keystone credentials entry named openstack; it logs in and writes the catalog there)",
    );
    return out;
  }
  const doc = JsonValue.parse(text);
  if (doc === null || doc.get("endpoints").length == 0) {
    out.error = invalid(key + " is not a catalog with endpoints: " + (doc === null ? JsonValue.lastError() : text));
    return out;
  }
  const e = out.endpoints;
  e.region = doc.get("region").asString();
  const list = doc.get("endpoints");
  e.compute = urlOf(list, "compute");
  e.network = withVersion(urlOf(list, "network"), "v2.0");
  e.loadBalancer = withVersion(urlOf(list, "load-balancer"), "v2");
  e.loadBalancerRoot = e.loadBalancer == "" ? "" : e.loadBalancer.substring(0, e.loadBalancer.length - 3);
  const missing: string[] = [];
  if (e.compute == "") missing.push("compute (nova)");
  if (e.network == "") missing.push("network (neutron)");
  if (needLoadBalancer && e.loadBalancer == "") missing.push("load-balancer (octavia)");
  if (missing.length > 0) {
    out.error = invalid("the service catalog (" + key + ") has no endpoint of type " + missing.join(", "));
  }
  return out;
}

function urlOf(list: JsonValue, type: string): string {
  for (let i = 0; i < list.length; i++) {
    const entry = list.at(i);
    if (entry.get("type").asString() != type) continue;
    let url = entry.get("url").asString();
    while (url.endsWith("/")) url = url.substring(0, url.length - 1);
    if (url.startsWith("http://") || url.startsWith("https://")) return url;
  }
  return "";
}

/** The root with its API version, unless the catalog's URL carries it already. */
function withVersion(url: string, version: string): string {
  if (url == "" || url.endsWith("/" + version)) return url;
  return url + "/" + version;
}
