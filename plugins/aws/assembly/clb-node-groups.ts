// The rules cloud-provider-aws keeps in the nodes' security groups for a Classic ELB: each target instance's group
// (the one tagged for the cluster, else its only group) lets everything in from the load balancer's group. A group
// that no target needs any more loses the rule when it is tagged for the cluster (or always, when the load balancer's
// group is being deleted: EC2 refuses to delete a group other groups' rules name).
import { internal, PluginError } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { changeIngress, describeGroups, GroupQuery, instanceGroups, Rule, SecurityGroup } from "./security-groups";

export class NodeGroups {
  ids: string[] = [];
  /** The groups of `ids`, as read. */
  groups: SecurityGroup[] = [];
  error: PluginError | null = null;
}

/** The group of each instance that takes the rule, as upstream's findSecurityGroupForInstance picks it. */
export function groupsOfInstances(aws: Aws, clusterID: string, instanceIds: string[]): NodeGroups {
  const out = new NodeGroups();
  if (instanceIds.length == 0) return out;
  const found = instanceGroups(aws, instanceIds);
  if (found.error !== null) {
    out.error = found.error;
    return out;
  }
  const read = describeGroups(aws, new GroupQuery().filter("group-id", allGroupsOf(found.byInstance)));
  if (read.error !== null) {
    out.error = read.error;
    return out;
  }
  const tagged = new Set<string>();
  for (let i = 0; i < read.items.length; i++) if (read.items[i].hasClusterTag(clusterID)) tagged.add(read.items[i].id);
  const instances = found.byInstance.keys();
  for (let i = 0; i < instances.length; i++) {
    const groups = found.byInstance.get(instances[i]);
    const mine: string[] = [];
    const others: string[] = [];
    for (let k = 0; k < groups.length; k++) (tagged.has(groups[k]) ? mine : others).push(groups[k]);
    let pick = "";
    if (mine.length > 1) {
      out.error = internal("instance " + instances[i] + " has several security groups tagged for cluster " + clusterID + " (" + mine.join(", ") + "): tag only the nodes' group");
      return out;
    } else if (mine.length == 1) {
      pick = mine[0];
    } else if (others.length > 1) {
      out.error = internal("instance " + instances[i] + " has several security groups and none is tagged for cluster " + clusterID + ": tag the nodes' group");
      return out;
    } else if (others.length == 1) {
      pick = others[0];
    }
    if (pick != "" && !out.ids.includes(pick)) out.ids.push(pick);
  }
  for (let i = 0; i < read.items.length; i++) if (out.ids.includes(read.items[i].id)) out.groups.push(read.items[i]);
  return out;
}

function allGroupsOf(byInstance: Map<string, string[]>): string[] {
  const out: string[] = [];
  const lists = byInstance.values();
  for (let i = 0; i < lists.length; i++) {
    for (let k = 0; k < lists[i].length; k++) if (!out.includes(lists[i][k])) out.push(lists[i][k]);
  }
  return out;
}

/**
 * Opens the nodes' groups of `instanceIds` to the load balancer's group `lbGroup`, and closes the groups no target
 * needs. `deleting`: every rule naming `lbGroup` goes, in tagged groups or not.
 */
export function syncNodeGroups(aws: Aws, clusterID: string, lbGroup: string, instanceIds: string[], deleting: bool): PluginError | null {
  const wanted = groupsOfInstances(aws, clusterID, instanceIds);
  if (wanted.error !== null) return wanted.error;
  const referencing = describeGroups(aws, new GroupQuery().filter("ip-permission.group-id", [lbGroup]));
  if (referencing.error !== null) return referencing.error;
  const have = new Set<string>();
  for (let i = 0; i < referencing.items.length; i++) {
    const g = referencing.items[i];
    if (wanted.ids.includes(g.id)) {
      have.add(g.id);
      continue;
    }
    if (!g.hasClusterTag(clusterID) && !deleting) continue;
    const error = changeIngress(aws, "RevokeSecurityGroupIngress", g.id, rulesFrom(g, lbGroup));
    if (error !== null) return error;
  }
  for (let i = 0; i < wanted.ids.length; i++) {
    if (have.has(wanted.ids[i])) continue;
    const error = changeIngress(aws, "AuthorizeSecurityGroupIngress", wanted.ids[i], [Rule.fromGroup(lbGroup)]);
    if (error !== null) return error;
  }
  return null;
}

/** The group's rules whose source is `source` (upstream's is protocol -1; revoke whatever names it). */
function rulesFrom(g: SecurityGroup, source: string): Rule[] {
  const out: Rule[] = [];
  for (let i = 0; i < g.rules.length; i++) if (g.rules[i].group == source) out.push(g.rules[i]);
  return out;
}
