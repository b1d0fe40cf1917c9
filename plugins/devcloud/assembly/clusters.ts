// Zones (deprecated upstream, kept for older callers) and Clusters. devcloud has no cluster objects: a cluster is the
// set of things tagged or labelled k8s-cluster=<name>, and its master is a running instance labelled
// k8s-role=control-plane in it.
import { MasterResponse, PluginError, Zone, instanceNotFound, internal, invalid } from "@wasm-ccm/plugin-sdk";
import { Api } from "./api";
import { addressesOf, instanceIdOf, Lookup, lookupById, lookupByName } from "./instances";
import { Config } from "./config";
import { TAG_CLUSTER } from "./loadbalancer";

export const LABEL_ROLE = "k8s-role";
export const ROLE_CONTROL_PLANE = "control-plane";

export function getZone(config: Config, out: Zone): PluginError | null {
  if (config.zone.length == 0) return internal('getZone: the cloud config has no "zone"');
  out.failureDomain = config.zone;
  out.region = config.region;
  return null;
}

function zoneOf(found: Lookup, who: string, out: Zone): PluginError | null {
  if (found.error !== null) return found.error;
  const inst = found.instance;
  if (inst === null || found.gone) return instanceNotFound("no devcloud instance " + who + " (missing or terminated)");
  out.failureDomain = inst.get("zone").asString();
  out.region = inst.get("region").asString();
  return null;
}

export function getZoneByProviderID(api: Api, providerID: string, out: Zone): PluginError | null {
  const id = instanceIdOf(providerID);
  if (id === null) return invalid('providerID "' + providerID + '" is not devcloud://<instance id>');
  return zoneOf(lookupById(api, id), providerID, out);
}

export function getZoneByNodeName(api: Api, nodeName: string, out: Zone): PluginError | null {
  return zoneOf(lookupByName(api, nodeName), "named " + nodeName, out);
}

export class Names {
  names: string[] = [];
  error: PluginError | null = null;
}

/** Every cluster name on devcloud's LBs, routes and instances, and this cluster's own. Sorted. */
export function listClusters(api: Api, own: string): Names {
  const out = new Names();
  const seen = new Set<string>();
  seen.add(own);
  const sources = ["/load-balancers", "/routes", "/instances"];
  for (let s = 0; s < sources.length; s++) {
    const isInstances = sources[s] == "/instances";
    const query = (isInstances ? "label=" : "tag=") + TAG_CLUSTER;
    const list = api.listAll(sources[s], query, "list " + sources[s].substring(1));
    if (list.error !== null) {
      out.error = list.error;
      return out;
    }
    for (let i = 0; i < list.items.length; i++) {
      const name = list.items[i]
        .get(isInstances ? "labels" : "tags")
        .get(TAG_CLUSTER)
        .asString();
      if (name.length > 0) seen.add(name);
    }
  }
  out.names = seen.values();
  out.names.sort();
  return out;
}

/** The first address (InternalIP preferred) of a running control-plane instance of the cluster. */
export function master(api: Api, cluster: string, out: MasterResponse): PluginError | null {
  const query =
    "state=running&label=" +
    encodeURIComponent(TAG_CLUSTER + "=" + cluster) +
    "&label=" +
    encodeURIComponent(LABEL_ROLE + "=" + ROLE_CONTROL_PLANE);
  const list = api.listAll("/instances", query, "list control-plane instances");
  if (list.error !== null) return list.error;
  for (let i = 0; i < list.items.length; i++) {
    const addrs = addressesOf(list.items[i]);
    for (let j = 0; j < addrs.length; j++) {
      if (addrs[j].type == "InternalIP") {
        out.address = addrs[j].address;
        return null;
      }
    }
    if (addrs.length > 0) {
      out.address = addrs[0].address;
      return null;
    }
  }
  return internal(
    "cluster " +
      cluster +
      " has no running instance labelled " +
      TAG_CLUSTER +
      "=" +
      cluster +
      ", " +
      LABEL_ROLE +
      "=" +
      ROLE_CONTROL_PLANE,
  );
}
