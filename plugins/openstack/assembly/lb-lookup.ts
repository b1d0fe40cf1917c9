// Which Octavia load balancer is a Service's: the one its loadbalancer.openstack.org/load-balancer-id annotation
// names (OCCM writes it on the Service; this plugin only reads it), else the one with OCCM's name for the Service, else
// the one with the legacy name ("a" + UID). Sharing one load balancer among Services is not supported: an ID naming
// another Service's load balancer is refused. A load balancer tagged with another Service UID belongs to a deleted
// Service of the same name whose deletion has not finished: it is not this Service's.
import { internal, invalid, PluginError, Service } from "@wasm-ccm/plugin-sdk";
import { Api } from "./api";
import { LOAD_BALANCER_ID } from "./lb-options";
import { legacyName, loadBalancerName, UID_TAG_PREFIX, uidTag } from "./names";
import { findByID, findByName, LoadBalancer } from "./octavia";

export class Lookup {
  /** The Service's load balancer; null when it has none. */
  lb: LoadBalancer | null = null;
  /** A load balancer with the Service's name that belongs to another UID (set only when `lb` is null). */
  otherUID: string = "";
  error: PluginError | null = null;
}

export function lookupLoadBalancer(api: Api, clusterName: string, service: Service): Lookup {
  const out = new Lookup();
  const name = loadBalancerName(clusterName, service);
  const id = service.annotations.has(LOAD_BALANCER_ID) ? service.annotations.get(LOAD_BALANCER_ID) : "";
  let found = id != "" ? findByID(api, id) : findByName(api, name);
  if (found.error === null && found.lb === null && id == "") found = findByName(api, legacyName(service));
  if (found.error !== null) {
    out.error = found.error;
    return out;
  }
  const lb = found.lb;
  if (lb === null) {
    if (id != "") out.error = internal("failed to get load balancer " + id + " (annotation " + LOAD_BALANCER_ID + ")");
    return out;
  }
  if (id != "" && lb.name != name) {
    out.error = invalid(
      "annotation " + LOAD_BALANCER_ID + ": load balancer " + id + " is " + lb.name +
        ", not this Service's " + name + "; sharing a load balancer among Services is not supported",
    );
    return out;
  }
  const owner = uidOf(lb);
  if (owner != "" && owner != service.uid) out.otherUID = owner;
  else out.lb = lb;
  return out;
}

/** The Service UID the load balancer is tagged with; "" when untagged (made by OCCM, or Octavia without tags). */
export function uidOf(lb: LoadBalancer): string {
  for (let i = 0; i < lb.tags.length; i++) {
    if (lb.tags[i].startsWith(UID_TAG_PREFIX)) return lb.tags[i].substring(UID_TAG_PREFIX.length);
  }
  return "";
}

/** The tags the Service's load balancer must carry and does not (OCCM's name tag, this plugin's UID tag). */
export function missingTags(lb: LoadBalancer, clusterName: string, service: Service): string[] {
  const want = [loadBalancerName(clusterName, service), uidTag(service)];
  const out: string[] = [];
  for (let i = 0; i < want.length; i++) if (!lb.tags.includes(want[i])) out.push(want[i]);
  return out;
}
