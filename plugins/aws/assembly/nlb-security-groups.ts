// The rules cloud-provider-aws keeps in the instances' security groups for an NLB, which has no group of its own: an
// NLB passes the clients' addresses through, so each target instance's group (the cluster-tagged one, as for a
// Classic ELB, clb-node-groups.ts) lets the clients in on the Service's NodePorts, the NLB's subnets in on the health
// check ports, and ICMP "fragmentation needed" (type 3 code 4, path MTU discovery) in from every client range. Rules
// are known by their descriptions (`kubernetes.io/rule/nlb/client=<lb name>`, `.../health=<lb name>`, and
// `kubernetes.io/rule/nlb/mtu` shared by all NLBs), the same as upstream's, so the rules either CCM made are the
// other's: a takeover finds them and adds nothing, and deletion revokes them whichever CCM made them.
import { PluginError, Service } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { groupsOfInstances } from "./clb-node-groups";
import { Nlb } from "./elbv2";
import { LbOptions, TRAFFIC_PORT } from "./lb-options";
import { NlbOptions } from "./nlb-options";
import { changeIngress, clusterGroups, hasRule, Rule, SecurityGroup } from "./security-groups";
import { EVERYWHERE } from "./source-ranges";
import { Targets } from "./targets";

export const CLIENT_RULE = "kubernetes.io/rule/nlb/client";
export const HEALTH_RULE = "kubernetes.io/rule/nlb/health";
export const MTU_RULE = "kubernetes.io/rule/nlb/mtu";
// ICMP destination unreachable (type 3), fragmentation needed (code 4): EC2 takes the type as FromPort, the code as ToPort.
const ICMP_UNREACHABLE = 3;
const ICMP_FRAGMENTATION_NEEDED = 4;

/** What the instances' groups let in for one NLB; no instances: nothing (its rules are revoked). */
export class NlbTraffic {
  lbName: string = "";
  instanceIds: string[] = [];
  /** "tcp", or "udp" for every port when any Service port is UDP (as upstream). */
  protocol: string = "tcp";
  /** The Service's NodePorts. */
  ports: i32[] = [];
  /** Each port's health check port (its NodePort for traffic-port). */
  healthPorts: i32[] = [];
  /** The source ranges, else 0.0.0.0/0. */
  clientCidrs: string[] = [];
  /** The NLB's subnets, whose addresses its health checks come from. */
  subnetIds: string[] = [];

  /**
   * Whether the health checks need rules of their own: not when every address may reach the same TCP ports anyway.
   */
  needsHealthRules(): bool {
    if (this.clientCidrs.length != 1 || this.clientCidrs[0] != EVERYWHERE || this.protocol != "tcp") return true;
    for (let i = 0; i < this.healthPorts.length; i++) if (!this.ports.includes(this.healthPorts[i])) return true;
    for (let i = 0; i < this.ports.length; i++) if (!this.healthPorts.includes(this.ports[i])) return true;
    return false;
  }
}

/**
 * Sets the NLB's rules in the instances' groups and revokes them from the cluster's other groups (tagged for the
 * cluster: an untagged group is touched only while one of the NLB's instances uses it, as upstream).
 */
export function syncNlbRules(aws: Aws, clusterID: string, traffic: NlbTraffic): PluginError | null {
  const wanted = groupsOfInstances(aws, clusterID, traffic.instanceIds);
  if (wanted.error !== null) return wanted.error;
  const all = clusterGroups(aws, clusterID);
  if (all.error !== null) return all.error;
  // An untagged group of a target instance, read with the instances' groups.
  for (let i = 0; i < wanted.groups.length; i++) if (!hasGroup(all.items, wanted.groups[i].id)) all.items.push(wanted.groups[i]);
  let subnetCidrs: string[] = [];
  if (wanted.ids.length > 0 && traffic.needsHealthRules()) {
    const cidrs = subnetCidrsOf(aws, traffic.subnetIds);
    if (cidrs.error !== null) return cidrs.error;
    subnetCidrs = cidrs.items;
  }
  const client = ruleSet(traffic.protocol, traffic.ports, traffic.clientCidrs, CLIENT_RULE + "=" + traffic.lbName);
  const health = ruleSet("tcp", traffic.healthPorts, subnetCidrs, HEALTH_RULE + "=" + traffic.lbName);
  for (let i = 0; i < all.items.length; i++) {
    const g = all.items[i];
    const used = wanted.ids.includes(g.id);
    if (!used && !g.hasClusterTag(clusterID)) continue;
    const error = syncGroup(aws, g, used ? health : [], used ? client : [], traffic.lbName);
    if (error !== null) return error;
  }
  return null;
}

function hasGroup(groups: SecurityGroup[], id: string): bool {
  for (let i = 0; i < groups.length; i++) if (groups[i].id == id) return true;
  return false;
}

/** Revokes the NLB's rules from the cluster's groups (the Service is being deleted). */
export function revokeNlbRules(aws: Aws, clusterID: string, lbName: string): PluginError | null {
  const none = new NlbTraffic();
  none.lbName = lbName;
  return syncNlbRules(aws, clusterID, none);
}

/**
 * One group: the NLB's health and client rules as wanted, then the shared MTU rules on every sync (not only after a
 * change here, so that an MTU change that failed after the client rules were made is made by the next sync; the
 * group's rules are already read, so a group as wanted costs no request).
 */
function syncGroup(aws: Aws, g: SecurityGroup, health: Rule[], client: Rule[], lbName: string): PluginError | null {
  const healthError = syncDescribed(aws, g, health, HEALTH_RULE + "=" + lbName);
  if (healthError !== null) return healthError;
  const clientError = syncDescribed(aws, g, client, CLIENT_RULE + "=" + lbName);
  if (clientError !== null) return clientError;
  return syncDescribed(aws, g, mtuRules(g.rules), MTU_RULE);
}

/**
 * Makes the group's rules described `description` exactly `want`: revokes the others so described, then adds what is
 * missing. `g.rules` follows, so the next step sees the group as it now is.
 */
function syncDescribed(aws: Aws, g: SecurityGroup, want: Rule[], description: string): PluginError | null {
  const revoke: Rule[] = [];
  const keep: Rule[] = [];
  for (let i = 0; i < g.rules.length; i++) {
    const r = g.rules[i];
    if (r.description == description && !hasDescribed(want, r)) revoke.push(r);
    else keep.push(r);
  }
  const add: Rule[] = [];
  // A rule of the same ports and source under another description: EC2 refuses a second (and the whole request with
  // it); upstream skips it and counts the wanted rule as made, for the MTU rules too.
  for (let i = 0; i < want.length; i++) {
    const w = want[i];
    if (hasDescribed(keep, w) || hasDescribed(add, w)) continue;
    if (!hasRule(keep, w)) add.push(w);
    keep.push(w);
  }
  const error = changeIngress(aws, "RevokeSecurityGroupIngress", g.id, revoke);
  if (error !== null) return error;
  g.rules = keep;
  return changeIngress(aws, "AuthorizeSecurityGroupIngress", g.id, add);
}

/** The same rule with the same description (upstream's rule identity: a rule described otherwise is another's). */
function hasDescribed(rules: Rule[], r: Rule): bool {
  for (let i = 0; i < rules.length; i++) if (rules[i].key == r.key && rules[i].description == r.description) return true;
  return false;
}

/** ICMP 3/4 from each client range of any NLB in the group, so large replies can be fragmented on the way back. */
function mtuRules(rules: Rule[]): Rule[] {
  const out: Rule[] = [];
  for (let i = 0; i < rules.length; i++) {
    if (!rules[i].description.includes(CLIENT_RULE) || rules[i].cidr == "") continue;
    const r = Rule.cidr("icmp", ICMP_UNREACHABLE, ICMP_FRAGMENTATION_NEEDED, rules[i].cidr);
    r.description = MTU_RULE;
    if (!hasDescribed(out, r)) out.push(r);
  }
  return out;
}

function ruleSet(protocol: string, ports: i32[], cidrs: string[], description: string): Rule[] {
  const out: Rule[] = [];
  for (let p = 0; p < ports.length; p++) {
    for (let c = 0; c < cidrs.length; c++) {
      const r = Rule.cidr(protocol, ports[p], ports[p], cidrs[c]);
      r.description = description;
      if (!hasDescribed(out, r)) out.push(r);
    }
  }
  return out;
}

class Cidrs {
  items: string[] = [];
  error: PluginError | null = null;
}

function subnetCidrsOf(aws: Aws, ids: string[]): Cidrs {
  const out = new Cidrs();
  if (ids.length == 0) return out;
  const answer = aws.callEc2(aws.ec2Request("DescribeSubnets").addList("SubnetId", ids));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const items = answer.root!.path("subnetSet/item");
  for (let i = 0; i < items.length; i++) {
    const cidr = items[i].childText("cidrBlock");
    if (cidr != "" && !out.items.includes(cidr)) out.items.push(cidr);
  }
  return out;
}

/**
 * The NLB's traffic: its instance targets, or the EC2 instances among its IP targets (their groups keep the rules; the
 * other provider's nodes are in no EC2 group).
 */
export function nlbTraffic(service: Service, lb: Nlb, opts: LbOptions, nlb: NlbOptions, targets: Targets): NlbTraffic {
  const out = new NlbTraffic();
  out.lbName = lb.name;
  out.instanceIds = targets.instanceIds();
  out.clientCidrs = nlb.clientCidrs;
  out.subnetIds = lb.subnets;
  for (let i = 0; i < service.ports.length; i++) {
    const port = service.ports[i];
    if (port.protocol == "UDP") out.protocol = "udp";
    out.ports.push(port.nodePort);
    out.healthPorts.push(opts.health.port == TRAFFIC_PORT ? port.nodePort : I32.parseInt(opts.health.port));
  }
  return out;
}
