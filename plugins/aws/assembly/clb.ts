// LoadBalancer as a Classic ELB, as cloud-provider-aws makes it when a Service names no load balancer type: one ELB per
// Service named from its UID (so one that aws-cloud-controller-manager made is found and kept: same ELB, same DNS
// name), a TCP listener per Service port to its NodePort, upstream's health check, the ELB's own security group
// k8s-elb-<name> open to the source ranges on the Service ports, the nodes' groups open to that group, and the target
// nodes' instances registered. Deletion removes the ELB, the rules naming its group, and the group.
import {
  internal,
  invalid,
  LoadBalancerIngress,
  LoadBalancerStatus,
  Log,
  fields,
  Node,
  PluginError,
  QueryRequest,
  Service,
} from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import {
  addClbTags,
  addListeners,
  callClb,
  changeInstances,
  Clb,
  ClbHealthCheck,
  ClbListener,
  clbRequest,
  configureHealthCheck,
  describeAttributes,
  describeClb,
  ELB_VERSION,
  modifyAttributes,
} from "./clb-api";
import { syncNodeGroups } from "./clb-node-groups";
import { clbHealthCheck, ClbOptions, readClbOptions } from "./clb-options";
import { Config } from "./config";
import { LbOptions } from "./lb-options";
import { clusterTag, loadBalancerName, SERVICE_NAME_TAG } from "./names";
import { deleteGroup, describeGroups, ensureGroup, groupById, Rule, setIngress } from "./security-groups";
import { chooseSubnets } from "./subnets";
import { chooseTargets, isForeign } from "./targets";

export function securityGroupName(lbName: string): string {
  return "k8s-elb-" + lbName;
}

/** Owned by the cluster: upstream tags its ELBs kubernetes.io/cluster/<id>=owned (legacy: KubernetesCluster=<id>). */
export function ownsClb(lb: Clb, clusterID: string): bool {
  if (lb.tags.has(clusterTag(clusterID))) return true;
  return lb.tags.has("KubernetesCluster") && lb.tags.get("KubernetesCluster") == clusterID;
}

export function clbStatus(lb: Clb, status: LoadBalancerStatus): void {
  const ingress = new LoadBalancerIngress();
  ingress.hostname = lb.dnsName;
  status.ingress = [ingress];
}

function listenersOf(service: Service): ClbListener[] {
  const out: ClbListener[] = [];
  for (let i = 0; i < service.ports.length; i++) {
    const p = service.ports[i];
    if (p.nodePort == 0) continue;
    const l = new ClbListener();
    // Lower case as upstream sends them; ELB answers upper case, and listeners compare case-insensitively.
    l.protocol = "tcp";
    l.instanceProtocol = "tcp";
    l.port = p.port;
    l.instancePort = p.nodePort;
    out.push(l);
  }
  return out;
}

function checkService(service: Service): PluginError | null {
  if (service.sessionAffinity != "" && service.sessionAffinity != "None") {
    return invalid("unsupported load balancer affinity: " + service.sessionAffinity + " (a Classic ELB keeps no TCP affinity)");
  }
  if (service.ports.length == 0) return invalid("requested load balancer with no ports");
  for (let i = 0; i < service.ports.length; i++) {
    const p = service.ports[i].protocol;
    if (p != "TCP") return invalid("port " + service.ports[i].port.toString() + ": protocol " + p + " is not supported by a Classic ELB (TCP only; UDP needs aws-load-balancer-type: nlb)");
  }
  return null;
}

/** The Service's refusals that need no request: annotations, protocols, affinity, the health check. */
export function checkClassic(service: Service): PluginError | null {
  const opts = readClbOptions(service);
  if (opts.error !== null) return opts.error;
  const serviceError = checkService(service);
  if (serviceError !== null) return serviceError;
  const listeners = listenersOf(service);
  return clbHealthCheck(service, listeners.length > 0 ? listeners[0].instancePort : 0).error;
}

/** Ensure (mayCreate) or update (the ELB must exist) the Service's Classic ELB for `nodes`. */
export function ensureClassic(aws: Aws, cfg: Config, service: Service, nodes: Node[], mayCreate: bool, status: LoadBalancerStatus): PluginError | null {
  const checked = checkClassic(service);
  if (checked !== null) return checked;
  const opts = readClbOptions(service);
  const listeners = listenersOf(service);
  const health = clbHealthCheck(service, listeners.length > 0 ? listeners[0].instancePort : 0);
  const name = loadBalancerName(service);
  const found = describeClb(aws, name);
  if (found.error !== null) return found.error;
  let lb = found.lb;
  if (lb === null && !mayCreate) return internal("load balancer " + name + " does not exist");
  if (lb !== null) {
    if (!ownsClb(lb, cfg.clusterID)) return internal("load balancer " + name + " exists but is not tagged for cluster " + cfg.clusterID);
    const scheme = opts.internal ? "internal" : "internet-facing";
    if (lb.scheme != "" && lb.scheme != scheme) {
      return internal("load balancer " + name + " is " + lb.scheme + ", the Service asks for " + scheme + ": delete and re-create the Service");
    }
  }
  const group = ensureElbGroup(aws, cfg, service, name, opts);
  if (group.error !== null) return group.error;
  const created = lb === null;
  if (lb === null) {
    const made = createClassic(aws, cfg, service, opts, listeners, group.id);
    if (made.error !== null) return made.error;
    lb = made.lb!;
  } else {
    const error = syncClassic(aws, lb, opts, listeners, group.id);
    if (error !== null) return error;
  }
  const error = syncSettings(aws, lb, opts, health.check, created);
  if (error !== null) return error;
  const targetError = syncInstances(aws, cfg, lb, group.id, nodes, opts);
  if (targetError !== null) return targetError;
  clbStatus(lb, status);
  return null;
}

class Group {
  id: string = "";
  error: PluginError | null = null;
}

/** The ELB's group with ingress for the Service ports and ICMP 3/4 (path MTU discovery) from the source ranges. */
function ensureElbGroup(aws: Aws, cfg: Config, service: Service, name: string, opts: ClbOptions): Group {
  const out = new Group();
  const tags = new Map<string, string>();
  const extra = opts.additionalTags.keys();
  for (let i = 0; i < extra.length; i++) tags.set(extra[i], opts.additionalTags.get(extra[i]));
  tags.set(clusterTag(cfg.clusterID), "owned");
  const description = "Security group for Kubernetes ELB " + name + " (" + service.namespace + "/" + service.name + ")";
  const made = ensureGroup(aws, cfg.vpc, securityGroupName(name), description, tags, clusterTag(cfg.clusterID));
  if (made.error !== null) {
    out.error = made.error;
    return out;
  }
  out.id = made.id;
  const read = groupById(aws, made.id);
  if (read.error !== null || read.items.length == 0) {
    out.error = read.error !== null ? read.error : internal("security group " + made.id + " vanished");
    return out;
  }
  const want: Rule[] = [];
  for (let r = 0; r < opts.sourceRanges.length; r++) {
    const cidr = opts.sourceRanges[r];
    for (let i = 0; i < service.ports.length; i++) {
      const port = service.ports[i].port;
      want.push(Rule.cidr(service.ports[i].protocol.toLowerCase(), port, port, cidr));
    }
    want.push(Rule.cidr("icmp", 3, 4, cidr));
  }
  out.error = setIngress(aws, read.items[0], want);
  return out;
}

class Made {
  lb: Clb | null = null;
  error: PluginError | null = null;
}

function createClassic(aws: Aws, cfg: Config, service: Service, opts: ClbOptions, listeners: ClbListener[], group: string): Made {
  const out = new Made();
  // The subnets annotation is refused for a Classic ELB (clb-options.ts): discovered, as upstream.
  const subnets = chooseSubnets(aws, cfg, opts.internal, []);
  if (subnets.error !== null) {
    out.error = subnets.error;
    return out;
  }
  const lb = new Clb();
  lb.name = loadBalancerName(service);
  lb.scheme = opts.internal ? "internal" : "internet-facing";
  lb.securityGroups = [group];
  lb.tags = new Map();
  const extra = opts.additionalTags.keys();
  for (let i = 0; i < extra.length; i++) lb.tags.set(extra[i], opts.additionalTags.get(extra[i]));
  lb.tags.set(SERVICE_NAME_TAG, service.namespace + "/" + service.name);
  lb.tags.set(clusterTag(cfg.clusterID), "owned");
  const q = new QueryRequest("CreateLoadBalancer", ELB_VERSION).add("LoadBalancerName", lb.name);
  addListeners(q, listeners);
  q.addMembers("Subnets", subnets.ids).addMembers("SecurityGroups", [group]);
  // As upstream: Scheme only for internal; internet-facing is ELB's default.
  if (opts.internal) q.add("Scheme", "internal");
  const answer = callClb(aws, addClbTags(q, lb.tags));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  lb.dnsName = answer.root!.pathText("CreateLoadBalancerResult/DNSName");
  lb.listeners = listeners;
  Log.info("created classic load balancer", fields().set("name", lb.name).set("scheme", lb.scheme).set("dns", lb.dnsName));
  out.lb = lb;
  return out;
}

/** An existing ELB (this plugin's or aws-cloud-controller-manager's): its groups, listeners and tags as wanted. */
function syncClassic(aws: Aws, lb: Clb, opts: ClbOptions, listeners: ClbListener[], group: string): PluginError | null {
  if (lb.securityGroups.length != 1 || lb.securityGroups[0] != group) {
    const q = clbRequest("ApplySecurityGroupsToLoadBalancer", lb.name).addMembers("SecurityGroups", [group]);
    const error = callClb(aws, q).error;
    if (error !== null) return error;
    lb.securityGroups = [group];
  }
  const removals: string[] = [];
  for (let i = 0; i < lb.listeners.length; i++) {
    if (!hasListener(listeners, lb.listeners[i])) removals.push(lb.listeners[i].port.toString());
  }
  const additions: ClbListener[] = [];
  for (let i = 0; i < listeners.length; i++) if (!hasListener(lb.listeners, listeners[i])) additions.push(listeners[i]);
  if (removals.length > 0) {
    const q = clbRequest("DeleteLoadBalancerListeners", lb.name).addMembers("LoadBalancerPorts", removals);
    const error = callClb(aws, q).error;
    if (error !== null) return error;
  }
  if (additions.length > 0) {
    const error = callClb(aws, addListeners(clbRequest("CreateLoadBalancerListeners", lb.name), additions)).error;
    if (error !== null) return error;
  }
  lb.listeners = listeners;
  if (opts.additionalTags.size == 0) return null;
  const q = new QueryRequest("AddTags", ELB_VERSION).addMembers("LoadBalancerNames", [lb.name]);
  return callClb(aws, addClbTags(q, opts.additionalTags)).error;
}

function hasListener(list: ClbListener[], l: ClbListener): bool {
  for (let i = 0; i < list.length; i++) if (list[i].sameAs(l)) return true;
  return false;
}

/**
 * Attributes (access log, draining, idle timeout, cross-zone) and the health check, each changed only when different;
 * a new ELB gets its attributes set once whatever it reports, as upstream sets them on every ELB it makes.
 */
function syncSettings(aws: Aws, lb: Clb, opts: ClbOptions, health: ClbHealthCheck, created: bool): PluginError | null {
  const current = describeAttributes(aws, lb.name);
  if (current.error !== null) return current.error;
  if (created || !opts.attributes.satisfiedBy(current.attributes)) {
    const error = modifyAttributes(aws, lb.name, opts.attributes);
    if (error !== null) return error;
  }
  const actual = lb.healthCheck;
  if (actual !== null && actual.sameAs(health)) return null;
  const error = configureHealthCheck(aws, lb.name, health);
  if (error === null) lb.healthCheck = health;
  return error;
}

/** Registers the running instances of the target nodes, deregisters the rest, and keeps the nodes' groups open. */
function syncInstances(aws: Aws, cfg: Config, lb: Clb, group: string, nodes: Node[], opts: ClbOptions): PluginError | null {
  const eligible: Node[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (isForeign(nodes[i].providerID)) {
      // A Classic ELB holds instances only (aws-load-balancer-type: nlb gives such nodes IP targets).
      Log.info("node left out of a Classic ELB: not an EC2 instance", fields().set("node", nodes[i].name).set("elb", lb.name));
      continue;
    }
    if (!matchesLabels(nodes[i], opts.targetNodeLabels)) continue;
    eligible.push(nodes[i]);
  }
  const targets = chooseTargets(aws, eligible, new LbOptions(), cfg.clusterID);
  if (targets.error !== null) return targets.error;
  const want = targets.ids();
  const groupError = syncNodeGroups(aws, cfg.clusterID, group, want, false);
  if (groupError !== null) return groupError;
  const add: string[] = [];
  const remove: string[] = [];
  for (let i = 0; i < want.length; i++) if (!lb.instances.includes(want[i])) add.push(want[i]);
  for (let i = 0; i < lb.instances.length; i++) if (!want.includes(lb.instances[i])) remove.push(lb.instances[i]);
  const error = changeInstances(aws, "RegisterInstancesWithLoadBalancer", lb.name, add);
  if (error !== null) return error;
  const deregError = changeInstances(aws, "DeregisterInstancesFromLoadBalancer", lb.name, remove);
  if (deregError === null) lb.instances = want;
  return deregError;
}

/** Upstream's filterTargetNodes: every label present, with the value unless the wanted value is empty. */
function matchesLabels(node: Node, want: Map<string, string>): bool {
  const keys = want.keys();
  for (let i = 0; i < keys.length; i++) {
    if (!node.labels.has(keys[i])) return false;
    const v = want.get(keys[i]);
    if (v != "" && node.labels.get(keys[i]) != v) return false;
  }
  return true;
}

/**
 * Deletes the Service's Classic ELB when the cluster owns it: first the rules naming its group in the nodes' groups,
 * then the ELB, then its group. A group left by a deletion that stopped half-way is found by name and removed too.
 */
export function deleteClassic(aws: Aws, cfg: Config, service: Service): PluginError | null {
  const name = loadBalancerName(service);
  const found = describeClb(aws, name);
  if (found.error !== null) return found.error;
  const lb = found.lb;
  let groups: string[] = [];
  if (lb !== null) {
    if (!ownsClb(lb, cfg.clusterID)) return null;
    groups = lb.securityGroups;
  }
  const byName = describeGroups(aws, aws.ec2Request("DescribeSecurityGroups").addFilter("group-name", [securityGroupName(name)]).addFilter("vpc-id", [cfg.vpc]));
  if (byName.error !== null) return byName.error;
  for (let i = 0; i < byName.items.length; i++) if (!groups.includes(byName.items[i].id)) groups.push(byName.items[i].id);
  // Only groups tagged for the cluster are the load balancer's own (not a group shared with anything else).
  const owned: string[] = [];
  for (let i = 0; i < groups.length; i++) {
    const g = groupById(aws, groups[i]);
    if (g.error !== null) return g.error;
    if (g.items.length > 0 && g.items[0].hasClusterTag(cfg.clusterID)) owned.push(groups[i]);
  }
  for (let i = 0; i < owned.length; i++) {
    const error = syncNodeGroups(aws, cfg.clusterID, owned[i], [], true);
    if (error !== null) return error;
  }
  if (lb !== null) {
    const error = callClb(aws, clbRequest("DeleteLoadBalancer", name)).error;
    if (error !== null) return error;
    Log.info("deleted classic load balancer", fields().set("name", name));
  }
  for (let i = 0; i < owned.length; i++) {
    const error = deleteGroup(aws, owned[i]);
    if (error !== null) return error;
  }
  return null;
}
