// LoadBalancer on Octavia as OCCM's LbaasV2 does it: a new load balancer is created fully populated in one request
// (listeners, pools, members, health monitors) and waited for; an existing one is reconciled step by step
// (lb-sync.ts); the Service's address is its floating IP or the VIP; deletion removes the floating IP a CCM made and
// the load balancer with everything in it (Octavia's cascade delete, or piece by piece with cascade-delete = false).
import {
  encodeComponent,
  ErrorCode,
  fields,
  implementedElsewhere,
  internal,
  IPMode,
  isIPv6,
  JsonValue,
  LoadBalancerIngress,
  LoadBalancerStatus,
  Log,
  Node,
  PluginError,
  retryAfter,
  Service,
} from "@wasm-ccm/plugin-sdk";
import { Api, del, post, put } from "./api";
import { LbConfig } from "./config";
import { advertisedAddress, ensureFloatingIP, releaseFloatingIP } from "./floating-ip";
import { lookupLoadBalancer, Lookup, missingTags } from "./lb-lookup";
import { HOSTNAME, LbOptions, PROXY_PROTOCOL, readOptions } from "./lb-options";
import { planMemberSubnet, planSubnets } from "./lb-subnets";
import { syncListeners, syncPort } from "./lb-sync";
import { loadBalancerName, SERVICE_PREFIX } from "./names";
import { listenerProtocol, loadBalancerBody, Plan } from "./octavia-build";
import {
  ACTIVE,
  ERROR,
  Found,
  listListeners,
  listPools,
  LoadBalancer,
  octaviaFeatures,
  parseLoadBalancer,
  waitActive,
  waitDeleted,
} from "./octavia";
import { deleteOwnParts } from "./lb-delete";

export class GetResult {
  exists: bool = false;
  error: PluginError | null = null;
}

export function getLoadBalancer(api: Api, cfg: LbConfig, clusterName: string, service: Service, status: LoadBalancerStatus): GetResult {
  const out = new GetResult();
  if (!cfg.enabled) return out;
  const found = lookupLoadBalancer(api, clusterName, service);
  out.error = found.error;
  const lb = found.lb;
  if (lb === null || found.error !== null) return out;
  out.exists = true;
  if (lb.vipPortID == "") return out; // as OCCM: no VIP port yet, no address
  let address = lb.vipAddress;
  if (!isIPv6(address)) {
    const advertised = advertisedAddress(api, lb);
    if (advertised.error !== null) {
      out.error = advertised.error;
      return out;
    }
    address = advertised.address;
  }
  // The status ensure gives (OCCM's GetLoadBalancer leaves out the IP mode and the hostname annotation).
  const proxy = service.annotations.has(PROXY_PROTOCOL) ? service.annotations.get(PROXY_PROTOCOL) : "false";
  statusOf(service, cfg, proxy == "true" || proxy == "v1" || proxy == "v2", address, status);
  return out;
}

/** createLoadBalancerStatus: the hostname annotation, or the address (as a nip.io-style name for PROXY with
 * enable-ingress-hostname), in IP mode Proxy for the PROXY protocol so that kube-proxy does not bypass it. */
function statusOf(service: Service, cfg: LbConfig, proxy: bool, address: string, status: LoadBalancerStatus): void {
  const ingress = new LoadBalancerIngress();
  const hostname = service.annotations.has(HOSTNAME) ? service.annotations.get(HOSTNAME) : "";
  if (hostname != "") {
    ingress.hostname = hostname;
  } else if (proxy && cfg.enableIngressHostname) {
    ingress.hostname = address + "." + cfg.ingressHostnameSuffix;
  } else {
    ingress.ip = address;
    ingress.ipMode = proxy ? IPMode.Proxy : IPMode.VIP;
  }
  status.ingress = [ingress];
}

class Prepared {
  plan: Plan | null = null;
  found: Lookup = new Lookup();
  error: PluginError | null = null;
}

/** The options, the plan and the current load balancer; every refusal comes here, before anything changes. */
function prepare(api: Api, cfg: LbConfig, clusterName: string, service: Service, nodes: Node[]): Prepared {
  const out = new Prepared();
  const opts = readOptions(service, cfg);
  if (opts.error !== null) return fail(out, opts.error!);
  const what = service.namespace + "/" + service.name;
  if (service.ports.length == 0) return fail(out, internal("no ports provided to openstack load balancer " + what));
  const plan = new Plan(service, opts, cfg, octaviaFeatures(api.lbRoot, cfg.lbProvider));
  plan.clusterName = clusterName;
  plan.lbName = loadBalancerName(clusterName, service);
  plan.nodes = filterNodes(nodes, opts);
  out.plan = plan;
  out.found = lookupLoadBalancer(api, clusterName, service);
  if (out.found.error !== null) return fail(out, out.found.error!);
  if (out.found.otherUID != "") {
    const message =
      "load balancer " + plan.lbName + " belongs to Service UID " + out.found.otherUID +
      " (a deleted Service of the same name); waiting for its deletion";
    return fail(out, retryAfter(10, message));
  }
  return out;
}

function fail(out: Prepared, error: PluginError): Prepared {
  out.error = error;
  return out;
}

/** OCCM's filterNodes: nodes carrying every label of node-selector ("" matching any value). */
function filterNodes(nodes: Node[], opts: LbOptions): Node[] {
  const keys = opts.nodeSelector.keys();
  if (keys.length == 0) return nodes;
  const out: Node[] = [];
  for (let i = 0; i < nodes.length; i++) {
    let match = nodes[i].labels.size > 0;
    for (let k = 0; k < keys.length && match; k++) {
      const want = opts.nodeSelector.get(keys[k]);
      match = nodes[i].labels.has(keys[k]) && (want == "" || nodes[i].labels.get(keys[k]) == want);
    }
    if (match) out.push(nodes[i]);
  }
  return out;
}

export function ensureLoadBalancer(
  api: Api,
  cfg: LbConfig,
  clusterName: string,
  service: Service,
  nodes: Node[],
  status: LoadBalancerStatus,
): PluginError | null {
  if (!cfg.enabled) return implementedElsewhere("[LoadBalancer] enabled = false: this cloud's load balancers are off");
  const prepared = prepare(api, cfg, clusterName, service, nodes);
  if (prepared.error !== null) return prepared.error;
  const plan = prepared.plan!;
  if (nodes.length == 0) {
    return internal("there are no available nodes for LoadBalancer service " + service.namespace + "/" + service.name);
  }
  const subnetError = planSubnets(api, plan, nodes);
  if (subnetError !== null) return subnetError;
  let lb = prepared.found.lb;
  if (lb === null) {
    const made = createLoadBalancer(api, plan);
    if (made.error !== null) return made.error;
    lb = made.lb!;
  } else {
    const ready = settle(api, lb);
    if (ready.error !== null) return ready.error;
    lb = ready.lb!;
    const error = syncListeners(api, plan, lb);
    if (error !== null) return error;
  }
  const address = isIPv6(lb.vipAddress) ? lb.vipAddress : "";
  let advertised = address;
  if (address == "") {
    const fip = ensureFloatingIP(api, plan, lb);
    if (fip.error !== null) return fip.error;
    advertised = fip.address;
  }
  const tagError = addTags(api, plan, lb);
  if (tagError !== null) return tagError;
  statusOf(service, cfg, plan.opts.proxyProtocol != "", advertised, status);
  return null;
}

/** The load balancer once ACTIVE (waiting within the call's budget); an error for ERROR or a Retry for PENDING. */
function settle(api: Api, lb: LoadBalancer): Found {
  if (lb.provisioningStatus == ACTIVE) {
    const out = new Found();
    out.lb = lb;
    return out;
  }
  return waitActive(api, lb.id);
}

function createLoadBalancer(api: Api, plan: Plan): Found {
  const answer = post(api.lb, "/lbaas/loadbalancers", loadBalancerBody(plan));
  if (!answer.ok) {
    const out = new Found();
    out.error = internal("error creating loadbalancer " + plan.lbName + ": " + answer.error!.message);
    return out;
  }
  const made = parseLoadBalancer(answer.doc!.get("loadbalancer"));
  Log.info("created load balancer", fields().set("name", plan.lbName).set("id", made.id));
  const waited = waitActive(api, made.id);
  if (waited.error !== null && waited.lb !== null && waited.lb!.provisioningStatus == ERROR) {
    // As OCCM: a load balancer that landed in ERROR is removed, and the next sync creates it again.
    const removed = del(api.lb, "/lbaas/loadbalancers/" + encodeComponent(made.id) + "?cascade=true");
    const why = removed.ok ? "it was deleted and its creation will be retried" : "deleting it failed too";
    waited.error = internal("load balancer " + made.id + " has gone into ERROR state; " + why);
  }
  return waited;
}

/** OCCM's name tag and this plugin's UID tag on the load balancer (a load balancer OCCM made gets the UID here). */
function addTags(api: Api, plan: Plan, lb: LoadBalancer): PluginError | null {
  if (!plan.features.tags) return null;
  const missing = missingTags(lb, plan.clusterName, plan.service);
  if (missing.length == 0) return null;
  const tags = JsonValue.newArray();
  for (let i = 0; i < lb.tags.length; i++) tags.push(JsonValue.ofString(lb.tags[i]));
  for (let i = 0; i < missing.length; i++) tags.push(JsonValue.ofString(missing[i]));
  const body = JsonValue.newObject().set("loadbalancer", JsonValue.newObject().set("tags", tags));
  const answer = put(api.lb, "/lbaas/loadbalancers/" + encodeComponent(lb.id), body);
  if (!answer.ok) return answer.error;
  return waitActive(api, lb.id).error;
}

export function updateLoadBalancer(api: Api, cfg: LbConfig, clusterName: string, service: Service, nodes: Node[]): PluginError | null {
  if (!cfg.enabled) return implementedElsewhere("[LoadBalancer] enabled = false: this cloud's load balancers are off");
  const prepared = prepare(api, cfg, clusterName, service, nodes);
  if (prepared.error !== null) return prepared.error;
  const plan = prepared.plan!;
  const found = prepared.found.lb;
  if (found === null) return internal("load balancer " + plan.lbName + " does not exist");
  const subnetError = planMemberSubnet(api, plan, nodes);
  if (subnetError !== null) return subnetError;
  const ready = settle(api, found);
  if (ready.error !== null) return ready.error;
  const lb = ready.lb!;
  const listeners = listListeners(api, lb.id);
  if (listeners.error !== null) return listeners.error;
  const pools = listPools(api, lb.id);
  if (pools.error !== null) return pools.error;
  const ports = service.ports;
  for (let i = 0; i < ports.length; i++) {
    const proto = listenerProtocol(plan, ports[i]);
    let listenerID = "";
    for (let k = 0; k < listeners.items.length; k++) {
      const l = listeners.items[k];
      if (l.protocol == proto && l.port == ports[i].port) listenerID = l.id;
    }
    if (listenerID == "") {
      const port = ports[i].port.toString();
      return internal("loadbalancer " + lb.id + " does not contain required listener for port " + port + " and protocol " + ports[i].protocol);
    }
    const error = syncPort(api, plan, lb.id, listenerID, proto, ports[i], i, pools);
    if (error !== null) return error;
  }
  return null;
}

export function ensureLoadBalancerDeleted(api: Api, cfg: LbConfig, clusterName: string, service: Service): PluginError | null {
  if (!cfg.enabled) return null;
  const found = lookupLoadBalancer(api, clusterName, service);
  // A load balancer of another Service (an ID naming someone else's, another UID's) is not this Service's to delete.
  if (found.error !== null && found.error!.code != ErrorCode.Invalid) return found.error;
  const existing = found.lb;
  if (existing === null || found.error !== null) return null;
  let lb = existing;
  if (lb.provisioningStatus != ACTIVE && lb.provisioningStatus != ERROR) {
    const ready = waitActive(api, lb.id);
    if (ready.lb === null || (ready.error !== null && ready.lb!.provisioningStatus != ERROR)) return ready.error;
    lb = ready.lb!;
  }
  const lbName = loadBalancerName(clusterName, service);
  let shared = false;
  for (let i = 0; i < lb.tags.length; i++) {
    if (lb.tags[i] != lbName && lb.tags[i].startsWith(SERVICE_PREFIX)) shared = true;
  }
  // As OCCM: a load balancer it did not name, or that other Services share, loses only this Service's listeners.
  if (shared || !lb.name.startsWith(SERVICE_PREFIX)) return deleteOwnParts(api, lb, lbName, false);
  const opts = readOptions(service, cfg);
  const fipError = releaseFloatingIP(api, opts, lb);
  if (fipError !== null) return fipError;
  if (!cfg.cascadeDelete) return deleteOwnParts(api, lb, lbName, true);
  const answer = del(api.lb, "/lbaas/loadbalancers/" + encodeComponent(lb.id) + "?cascade=true");
  if (!answer.ok && !answer.notFound) return answer.error;
  Log.info("deleting load balancer", fields().set("name", lb.name).set("id", lb.id));
  return waitDeleted(api, lb.id);
}
