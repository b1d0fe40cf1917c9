// LoadBalancer as a Classic ELB, as cloud-provider-aws makes it when a Service names no load balancer type: one ELB per
// Service named from its UID (so one that aws-cloud-controller-manager made is found and kept: same ELB, same DNS
// name), a listener per Service port to its NodePort (TCP, or SSL/HTTPS/HTTP by the listener annotations:
// clb-listeners.ts) with its policies (clb-policies.ts), upstream's health check, the ELB's security groups
// (clb-groups.ts: its own k8s-elb-<name> open to the source ranges, or the Service's own), the nodes' groups open to
// the first of them, its subnets (the annotation's or discovered) kept as wanted, and the target nodes' instances
// registered. Deletion removes the ELB, the rules naming its group, and the group unless the Service brought it.
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
import { broughtGroups, ensureElbGroups, securityGroupName } from "./clb-groups";
import { buildListeners } from "./clb-listeners";
import { syncNodeGroups } from "./clb-node-groups";
import { clbHealthCheck, ClbOptions, readClbOptions } from "./clb-options";
import { syncProxyProtocol, syncSslPolicy } from "./clb-policies";
import { syncSubnets } from "./clb-subnets";
import { Config } from "./config";
import { LbOptions } from "./lb-options";
import { clusterTag, loadBalancerName, SERVICE_NAME_TAG } from "./names";
import { deleteGroup, describeGroups, groupById, GroupQuery } from "./security-groups";
import { chooseSubnets, Subnets } from "./subnets";
import { chooseTargets, isForeign } from "./targets";

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
  const listeners = buildListeners(service, opts.tls);
  return clbHealthCheck(service, listeners.length > 0 ? listeners[0].instancePort : 0).error;
}

/** Ensure (mayCreate) or update (the ELB must exist) the Service's Classic ELB for `nodes`. */
export function ensureClassic(aws: Aws, cfg: Config, service: Service, nodes: Node[], mayCreate: bool, status: LoadBalancerStatus): PluginError | null {
  const checked = checkClassic(service);
  if (checked !== null) return checked;
  const opts = readClbOptions(service);
  const listeners = buildListeners(service, opts.tls);
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
  // As upstream: subnets are chosen on every ensure (and kept as they are on a node set update).
  let subnets: Subnets | null = null;
  if (mayCreate) {
    subnets = chooseSubnets(aws, cfg, opts.internal, opts.subnets);
    if (subnets.error !== null) return subnets.error;
  }
  const groups = ensureElbGroups(aws, cfg, service, name, opts);
  if (groups.error !== null) return groups.error;
  const created = lb === null;
  if (lb === null) {
    const made = createClassic(aws, cfg, service, opts, listeners, groups.ids, subnets!.ids);
    if (made.error !== null) return made.error;
    lb = made.lb!;
  } else {
    const error = syncClassic(aws, lb, opts, listeners, groups.ids, subnets);
    if (error !== null) return error;
  }
  const policyError = syncProxyProtocol(aws, lb, listeners, opts.tls.proxyProtocol);
  if (policyError !== null) return policyError;
  const sslError = syncSslPolicy(aws, lb, lb.listeners, opts.tls.sslPolicy);
  if (sslError !== null) return sslError;
  const error = syncSettings(aws, lb, opts, health.check, created);
  if (error !== null) return error;
  const targetError = syncInstances(aws, cfg, lb, groups.ruleSource, nodes, opts);
  if (targetError !== null) return targetError;
  clbStatus(lb, status);
  return null;
}

class Made {
  lb: Clb | null = null;
  error: PluginError | null = null;
}

function createClassic(aws: Aws, cfg: Config, service: Service, opts: ClbOptions, listeners: ClbListener[], groups: string[], subnets: string[]): Made {
  const out = new Made();
  const lb = new Clb();
  lb.name = loadBalancerName(service);
  lb.scheme = opts.internal ? "internal" : "internet-facing";
  lb.securityGroups = groups;
  lb.subnets = subnets;
  lb.tags = new Map();
  const extra = opts.additionalTags.keys();
  for (let i = 0; i < extra.length; i++) lb.tags.set(extra[i], opts.additionalTags.get(extra[i]));
  lb.tags.set(SERVICE_NAME_TAG, service.namespace + "/" + service.name);
  lb.tags.set(clusterTag(cfg.clusterID), "owned");
  const q = new QueryRequest("CreateLoadBalancer", ELB_VERSION).add("LoadBalancerName", lb.name);
  addListeners(q, listeners);
  q.addMembers("Subnets", subnets).addMembers("SecurityGroups", groups);
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

/**
 * An existing ELB (this plugin's or aws-cloud-controller-manager's): its subnets (when chosen), groups, listeners and
 * tags as wanted. Listeners that stay keep what ELB answered for them (their policies).
 */
function syncClassic(aws: Aws, lb: Clb, opts: ClbOptions, listeners: ClbListener[], groups: string[], subnets: Subnets | null): PluginError | null {
  if (subnets !== null) {
    const error = syncSubnets(aws, lb, subnets.ids);
    if (error !== null) return error;
  }
  if (!sameSet(lb.securityGroups, groups)) {
    // ApplySecurityGroupsToLoadBalancer replaces the whole list.
    const q = clbRequest("ApplySecurityGroupsToLoadBalancer", lb.name).addMembers("SecurityGroups", groups);
    const error = callClb(aws, q).error;
    if (error !== null) return error;
    lb.securityGroups = groups;
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
  const kept: ClbListener[] = [];
  for (let i = 0; i < listeners.length; i++) kept.push(findListener(lb.listeners, listeners[i]));
  lb.listeners = kept;
  if (opts.additionalTags.size == 0) return null;
  const q = new QueryRequest("AddTags", ELB_VERSION).addMembers("LoadBalancerNames", [lb.name]);
  return callClb(aws, addClbTags(q, opts.additionalTags)).error;
}

function hasListener(list: ClbListener[], l: ClbListener): bool {
  for (let i = 0; i < list.length; i++) if (list[i].sameAs(l)) return true;
  return false;
}

/** The listener of `list` that is `l`, else `l` (a listener just made). */
function findListener(list: ClbListener[], l: ClbListener): ClbListener {
  for (let i = 0; i < list.length; i++) if (list[i].sameAs(l)) return list[i];
  return l;
}

function sameSet(a: string[], b: string[]): bool {
  if (a.length != b.length) return false;
  for (let i = 0; i < b.length; i++) if (!a.includes(b[i])) return false;
  return true;
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
  // DisableSecurityGroupIngress: the cluster's network setup opens the nodes to the load balancer, as upstream's.
  if (!cfg.disableSecurityGroupIngress) {
    const groupError = syncNodeGroups(aws, cfg.clusterID, group, want, false);
    if (groupError !== null) return groupError;
  }
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
 * The groups the Service names in its annotations (or [Global] ElbSecurityGroup) are not the ELB's: kept, only the
 * nodes' rules naming the first go.
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
  const byName = describeGroups(aws, new GroupQuery().filter("group-name", [securityGroupName(name)]).filter("vpc-id", [cfg.vpc]));
  if (byName.error !== null) return byName.error;
  for (let i = 0; i < byName.items.length; i++) if (!groups.includes(byName.items[i].id)) groups.push(byName.items[i].id);
  // Only groups tagged for the cluster are the load balancer's own (not a group shared with anything else).
  const brought = broughtGroups(service, cfg);
  const owned: string[] = [];
  for (let i = 0; i < groups.length; i++) {
    if (brought.has(groups[i])) continue;
    const g = groupById(aws, groups[i]);
    if (g.error !== null) return g.error;
    if (g.items.length > 0 && g.items[0].hasClusterTag(cfg.clusterID)) owned.push(groups[i]);
  }
  for (let i = 0; i < owned.length; i++) {
    const error = syncNodeGroups(aws, cfg.clusterID, owned[i], [], true);
    if (error !== null) return error;
  }
  // A group the Service brought stays: the rules naming it go from the cluster's groups only, as upstream's.
  if (brought.own.length > 0) {
    const error = syncNodeGroups(aws, cfg.clusterID, brought.own[0], [], false);
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
