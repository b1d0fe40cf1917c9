// LoadBalancer as a network load balancer through ELBv2, as cloud-provider-aws makes it: one NLB per Service named
// from its UID, one listener and one target group per Service port (targets: the nodes' instances on the NodePort, or
// their InternalIPs when the nodes are another cloud's, see targets.ts), the cluster and service-name tags on both. Ownership is the cluster tag with the value "owned".
import {
  implementedElsewhere,
  internal,
  LoadBalancerIngress,
  LoadBalancerStatus,
  Log,
  fields,
  Node,
  PluginError,
  Service,
} from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { Config } from "./config";
import {
  addTags,
  create,
  describeLoadBalancer,
  describeListeners,
  describeTargetGroups,
  Listener,
  Nlb,
  simpleCall,
  TargetGroup,
} from "./elbv2";
import { syncLoadBalancerAttributes } from "./attributes";
import { LbOptions, readOptions } from "./lb-options";
import { clusterTag, loadBalancerName, SERVICE_NAME_TAG } from "./names";
import { checkServiceSpec, NlbOptions, readNlbOptions } from "./nlb-options";
import { nlbTraffic, revokeNlbRules, syncNlbRules } from "./nlb-security-groups";
import { readClientCidrs } from "./source-ranges";
import { chooseSubnets } from "./subnets";
import { PortSync, removeTargetGroups, syncPort, targetGroupsOfService } from "./target-groups";
import { chooseTargets } from "./targets";

export class Found {
  lb: Nlb | null = null;
  error: PluginError | null = null;
}

/** The Service's NLB when this cluster owns it. */
export function findOwned(aws: Aws, clusterID: string, service: Service): Found {
  const out = new Found();
  const listed = describeLoadBalancer(aws, loadBalancerName(service));
  out.error = listed.error;
  if (listed.items.length == 0 || listed.error !== null) return out;
  const lb = listed.items[0];
  const tag = clusterTag(clusterID);
  if (lb.tags.has(tag) && lb.tags.get(tag) == "owned") out.lb = lb;
  return out;
}

export function statusOf(lb: Nlb, status: LoadBalancerStatus): void {
  const ingress = new LoadBalancerIngress();
  ingress.hostname = lb.dnsName;
  status.ingress = [ingress];
}

export function desiredTags(clusterID: string, service: Service, opts: LbOptions): Map<string, string> {
  const tags = new Map<string, string>();
  const extra = opts.additionalTags.keys();
  for (let i = 0; i < extra.length; i++) tags.set(extra[i], opts.additionalTags.get(extra[i]));
  tags.set(clusterTag(clusterID), "owned");
  tags.set(SERVICE_NAME_TAG, service.namespace + "/" + service.name);
  return tags;
}

/** Ensure (mayCreate) or update (the NLB must exist) the Service's NLB for `nodes`. */
export function ensureLoadBalancer(
  aws: Aws,
  cfg: Config,
  service: Service,
  nodes: Node[],
  mayCreate: bool,
  status: LoadBalancerStatus,
): PluginError | null {
  const opts = readOptions(service);
  if (opts.error !== null) return opts.error;
  if (opts.external) return implementedElsewhere("the Service's load balancer type is external");
  cfg.probe.apply(service, opts.health);
  const nlb = readNlbOptions(service);
  if (nlb.error !== null) return nlb.error;
  // The ranges serve only the instances' rules: unread (IPv6 ones and all) when the cluster opens the groups itself.
  if (!cfg.disableSecurityGroupIngress) {
    const rangeError = readClientCidrs(service, nlb.clientCidrs);
    if (rangeError !== null) return rangeError;
  }
  const specError = checkServiceSpec(service);
  if (specError !== null) return specError;
  const protocolError = checkProtocols(service);
  if (protocolError !== null) return protocolError;
  const name = loadBalancerName(service);
  const listed = describeLoadBalancer(aws, name);
  if (listed.error !== null) return listed.error;
  let lb: Nlb;
  if (listed.items.length == 0) {
    if (!mayCreate) return internal("load balancer " + name + " does not exist");
    const made = createLoadBalancer(aws, cfg, service, opts, nlb);
    if (made.error !== null) return made.error;
    lb = made.lb!;
  } else {
    lb = listed.items[0];
    const tag = clusterTag(cfg.clusterID);
    if (!lb.tags.has(tag) || lb.tags.get(tag) != "owned") {
      return internal("load balancer " + name + " exists but is not owned by cluster " + cfg.clusterID);
    }
    const scheme = opts.internal ? "internal" : "internet-facing";
    if (lb.scheme != scheme) {
      return internal("load balancer " + name + " is " + lb.scheme + ", the Service asks for " + scheme + ": delete and re-create the Service");
    }
    const tagError = updateTags(aws, lb, desiredTags(cfg.clusterID, service, opts));
    if (tagError !== null) return tagError;
  }
  const error = syncListeners(aws, cfg, service, nodes, opts, nlb, lb);
  if (error !== null) return error;
  const attrError = syncLoadBalancerAttributes(aws, lb.arn, nlb.lbAttributes);
  if (attrError !== null) return attrError;
  statusOf(lb, status);
  return null;
}

function checkProtocols(service: Service): PluginError | null {
  for (let i = 0; i < service.ports.length; i++) {
    const p = service.ports[i].protocol;
    if (p != "TCP" && p != "UDP") return internal("port " + service.ports[i].port.toString() + ": protocol " + p + " is not supported by an NLB");
  }
  return null;
}

class Made {
  lb: Nlb | null = null;
  error: PluginError | null = null;
}

function createLoadBalancer(aws: Aws, cfg: Config, service: Service, opts: LbOptions, nlb: NlbOptions): Made {
  const out = new Made();
  const subnets = chooseSubnets(aws, cfg, opts.internal, nlb.subnets);
  if (subnets.error !== null) {
    out.error = subnets.error;
    return out;
  }
  const lb = new Nlb();
  lb.name = loadBalancerName(service);
  lb.scheme = opts.internal ? "internal" : "internet-facing";
  lb.tags = desiredTags(cfg.clusterID, service, opts);
  const q = aws.elbRequest("CreateLoadBalancer").add("Name", lb.name).add("Type", "network").add("Scheme", lb.scheme);
  q.addMembers("Subnets", subnets.ids);
  const made = create(aws, addTags(q, lb.tags), "CreateLoadBalancerResult/LoadBalancers/member/LoadBalancerArn");
  if (made.error !== null) {
    out.error = made.error;
    return out;
  }
  lb.arn = made.arn;
  lb.dnsName = made.dnsName;
  lb.subnets = subnets.ids;
  Log.info("created network load balancer", fields().set("name", lb.name).set("scheme", lb.scheme).set("dns", lb.dnsName));
  out.lb = lb;
  return out;
}

function updateTags(aws: Aws, lb: Nlb, want: Map<string, string>): PluginError | null {
  const keys = want.keys();
  for (let i = 0; i < keys.length; i++) {
    if (!lb.tags.has(keys[i]) || lb.tags.get(keys[i]) != want.get(keys[i])) {
      const q = aws.elbRequest("AddTags").addMembers("ResourceArns", [lb.arn]);
      return simpleCall(aws, addTags(q, want));
    }
  }
  return null;
}

function syncListeners(
  aws: Aws,
  cfg: Config,
  service: Service,
  nodes: Node[],
  opts: LbOptions,
  nlb: NlbOptions,
  lb: Nlb,
): PluginError | null {
  const listeners = describeListeners(aws, lb.arn);
  if (listeners.error !== null) return listeners.error;
  const attached = describeTargetGroups(aws, lb.arn);
  if (attached.error !== null) return attached.error;
  addListenerGroups(attached.items, listeners.items);
  const targets = chooseTargets(aws, nodes, opts, cfg.clusterID);
  if (targets.error !== null) return targets.error;
  const sync = new PortSync(aws, cfg, service, opts, nlb, lb, listeners.items, attached.items, targets);
  for (let i = 0; i < service.ports.length; i++) {
    const error = syncPort(sync, service.ports[i]);
    if (error !== null) return error;
  }
  for (let i = 0; i < listeners.items.length; i++) {
    const l = listeners.items[i];
    if (sync.keep.includes(l.arn)) continue;
    const error = simpleCall(aws, aws.elbRequest("DeleteListener").add("ListenerArn", l.arn), "ListenerNotFound");
    if (error !== null) return error;
  }
  // Target groups no listener uses any more (a port removed or changed).
  const tgError = removeTargetGroups(aws, attached.items, sync.keep);
  if (tgError !== null) return tgError;
  if (cfg.disableSecurityGroupIngress) return null;
  return syncNlbRules(aws, cfg.clusterID, nlbTraffic(service, lb, opts, nlb, targets));
}

/**
 * The groups the listeners forward to, where the load balancer's own list lacks them: moto lists a group under a load
 * balancer only once a CreateListener made it so, not after a ModifyListener, and a group left out would never be
 * removed.
 */
function addListenerGroups(groups: TargetGroup[], listeners: Listener[]): void {
  for (let i = 0; i < listeners.length; i++) {
    const arn = listeners[i].targetGroupArn;
    if (arn == "") continue;
    let known = false;
    for (let k = 0; k < groups.length; k++) if (groups[k].arn == arn) known = true;
    if (known) continue;
    const tg = new TargetGroup();
    tg.arn = arn;
    groups.push(tg);
  }
}

export function ensureLoadBalancerDeleted(aws: Aws, cfg: Config, service: Service): PluginError | null {
  const found = findOwned(aws, cfg.clusterID, service);
  if (found.error !== null) return found.error;
  const lb = found.lb;
  if (lb !== null) {
    const attached = describeTargetGroups(aws, lb.arn);
    if (attached.error !== null) return attached.error;
    const error = simpleCall(aws, aws.elbRequest("DeleteLoadBalancer").add("LoadBalancerArn", lb.arn), "LoadBalancerNotFound");
    if (error !== null) return error;
    const tgError = removeTargetGroups(aws, attached.items, []);
    if (tgError !== null) return tgError;
    Log.info("deleted network load balancer", fields().set("name", lb.name));
  }
  // Whether or not the NLB is still there: an earlier delete (this CCM's or upstream's) may have stopped after it.
  if (!cfg.disableSecurityGroupIngress) {
    const ruleError = revokeNlbRules(aws, cfg.clusterID, loadBalancerName(service));
    if (ruleError !== null) return ruleError;
  }
  // Target groups made for the Service but never attached (an ensure that failed half-way).
  return targetGroupsOfService(aws, cfg, service);
}
