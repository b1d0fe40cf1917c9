// EC2 security groups as cloud-provider-aws manages them for a Classic ELB: the load balancer's own group (found by
// name in the VPC, else created with the cluster tag), its ingress set to exactly the wanted rules, and rules in the
// nodes' groups that let the load balancer's group in. Rules are compared one by one ("ungrouped"): EC2 merges rules of
// the same ports into one permission with several sources, and adding a source that is already there is an error.
import { internal, PluginError, QueryRequest, retryAfter, XmlElement } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { clusterTag } from "./names";

export const LEGACY_CLUSTER_TAG = "KubernetesCluster";

/** One ingress rule: a protocol and port range from one CIDR or one security group. */
export class Rule {
  protocol: string = "";
  /** -1 for none (protocol -1 has no ports). */
  from: i32 = -1;
  to: i32 = -1;
  cidr: string = "";
  group: string = "";
  /** A CIDR rule's description: how cloud-provider-aws marks its NLB rules (not part of the key). */
  description: string = "";

  static cidr(protocol: string, from: i32, to: i32, cidr: string): Rule {
    const r = new Rule();
    r.protocol = protocol;
    r.from = from;
    r.to = to;
    r.cidr = cidr;
    return r;
  }

  static fromGroup(group: string): Rule {
    const r = new Rule();
    r.protocol = "-1";
    r.group = group;
    return r;
  }

  get key(): string {
    const ports = this.protocol == "-1" ? "" : this.from.toString() + "-" + this.to.toString();
    return this.protocol + " " + ports + " " + (this.group != "" ? "sg:" + this.group : this.cidr);
  }
}

export class SecurityGroup {
  id: string = "";
  name: string = "";
  vpc: string = "";
  tags: Map<string, string> = new Map();
  rules: Rule[] = [];

  hasClusterTag(clusterID: string): bool {
    if (this.tags.has("kubernetes.io/cluster/" + clusterID)) return true;
    return this.tags.has(LEGACY_CLUSTER_TAG) && this.tags.get(LEGACY_CLUSTER_TAG) == clusterID;
  }
}

export class Groups {
  items: SecurityGroup[] = [];
  error: PluginError | null = null;
}

/** A DescribeSecurityGroups query by filters (EC2 ANDs them), built afresh for each page. */
export class GroupQuery {
  names: string[] = [];
  values: string[][] = [];

  filter(name: string, values: string[]): GroupQuery {
    this.names.push(name);
    this.values.push(values);
    return this;
  }
}

/** EC2's largest page of security groups. */
const PAGE_SIZE = "1000";

/**
 * Every group the query matches, page by page (EC2 pages the answer when asked for MaxResults, and an unpaged answer
 * of a large account exceeds the response cap).
 */
export function describeGroups(aws: Aws, query: GroupQuery): Groups {
  const out = new Groups();
  let token = "";
  do {
    const q = aws.ec2Request("DescribeSecurityGroups");
    for (let i = 0; i < query.names.length; i++) q.addFilter(query.names[i], query.values[i]);
    q.add("MaxResults", PAGE_SIZE);
    if (token != "") q.add("NextToken", token);
    token = readGroups(aws, q, out);
    if (out.error !== null) return out;
  } while (token != "");
  return out;
}

/** Adds the answer's groups to `out`; returns the next page's token ("" for none; none, not an error, for NotFound). */
function readGroups(aws: Aws, q: QueryRequest, out: Groups): string {
  const answer = aws.callEc2(q);
  if (answer.code == "InvalidGroup.NotFound") return "";
  if (!answer.ok) {
    out.error = answer.error;
    return "";
  }
  const items = answer.root!.path("securityGroupInfo/item");
  for (let i = 0; i < items.length; i++) out.items.push(readGroup(items[i]));
  return answer.root!.childText("nextToken");
}

function readGroup(el: XmlElement): SecurityGroup {
  const g = new SecurityGroup();
  g.id = el.childText("groupId");
  g.name = el.childText("groupName");
  g.vpc = el.childText("vpcId");
  const tags = el.path("tagSet/item");
  for (let i = 0; i < tags.length; i++) g.tags.set(tags[i].childText("key"), tags[i].childText("value"));
  const perms = el.path("ipPermissions/item");
  for (let i = 0; i < perms.length; i++) {
    const p = perms[i];
    const protocol = p.childText("ipProtocol");
    const from = protocol == "-1" ? -1 : intOr(p.childText("fromPort"), -1);
    const to = protocol == "-1" ? -1 : intOr(p.childText("toPort"), -1);
    const ranges = p.path("ipRanges/item");
    for (let k = 0; k < ranges.length; k++) {
      const r = Rule.cidr(protocol, from, to, ranges[k].childText("cidrIp"));
      r.description = ranges[k].childText("description");
      g.rules.push(r);
    }
    const groups = p.path("groups/item");
    for (let k = 0; k < groups.length; k++) {
      const r = Rule.cidr(protocol, from, to, "");
      r.group = groups[k].childText("groupId");
      g.rules.push(r);
    }
  }
  return g;
}

function intOr(text: string, fallback: i32): i32 {
  return text == "" ? fallback : I32.parseInt(text);
}

export class GroupId {
  id: string = "";
  error: PluginError | null = null;
}

/**
 * The group of that name in the VPC (group name and VPC are EC2's key for a group), else a new one with `tags`. A
 * found group without the cluster tag gets it, as upstream repairs a tagging that failed half-way.
 */
export function ensureGroup(aws: Aws, vpc: string, name: string, description: string, tags: Map<string, string>, clusterTag: string): GroupId {
  const out = new GroupId();
  const found = describeGroups(aws, new GroupQuery().filter("group-name", [name]).filter("vpc-id", [vpc]));
  if (found.error !== null) {
    out.error = found.error;
    return out;
  }
  if (found.items.length > 0) {
    const g = found.items[0];
    out.id = g.id;
    if (!g.tags.has(clusterTag)) out.error = createTags(aws, g.id, tags);
    return out;
  }
  const create = aws.ec2Request("CreateSecurityGroup").add("GroupName", name).add("GroupDescription", description).add("VpcId", vpc);
  create.add("TagSpecification.1.ResourceType", "security-group");
  const keys = tags.keys();
  for (let i = 0; i < keys.length; i++) {
    const prefix = "TagSpecification.1.Tag." + (i + 1).toString();
    create.add(prefix + ".Key", keys[i]).add(prefix + ".Value", tags.get(keys[i]));
  }
  const made = aws.callEc2(create);
  if (!made.ok) {
    out.error = made.error;
    return out;
  }
  out.id = made.root!.childText("groupId");
  if (out.id == "") out.error = internal("ec2 CreateSecurityGroup " + name + ": the answer has no groupId");
  return out;
}

function createTags(aws: Aws, id: string, tags: Map<string, string>): PluginError | null {
  const q = aws.ec2Request("CreateTags").add("ResourceId.1", id);
  const keys = tags.keys();
  for (let i = 0; i < keys.length; i++) {
    q.add("Tag." + (i + 1).toString() + ".Key", keys[i]).add("Tag." + (i + 1).toString() + ".Value", tags.get(keys[i]));
  }
  return aws.callEc2(q).error;
}

/** The group by ID: no items (and no error) when it is gone. One group: unpaged (EC2 refuses MaxResults with GroupId). */
export function groupById(aws: Aws, id: string): Groups {
  const out = new Groups();
  readGroups(aws, aws.ec2Request("DescribeSecurityGroups").addList("GroupId", [id]), out);
  return out;
}

/**
 * The groups tagged for the cluster: by tag key on EC2's side (the legacy tag's value is checked here), so that an
 * account's other groups never come back.
 */
export function clusterGroups(aws: Aws, clusterID: string): Groups {
  const keys = [clusterTag(clusterID), LEGACY_CLUSTER_TAG];
  const found = describeGroups(aws, new GroupQuery().filter("tag-key", keys));
  const out = new Groups();
  out.error = found.error;
  for (let i = 0; i < found.items.length; i++) if (found.items[i].hasClusterTag(clusterID)) out.items.push(found.items[i]);
  return out;
}

/** Sets the group's ingress to exactly `want`: adds what is missing, revokes what is not wanted. */
export function setIngress(aws: Aws, group: SecurityGroup, want: Rule[]): PluginError | null {
  const add: Rule[] = [];
  const remove: Rule[] = [];
  for (let i = 0; i < want.length; i++) if (!hasRule(group.rules, want[i]) && !hasRule(add, want[i])) add.push(want[i]);
  for (let i = 0; i < group.rules.length; i++) if (!hasRule(want, group.rules[i])) remove.push(group.rules[i]);
  const error = changeIngress(aws, "AuthorizeSecurityGroupIngress", group.id, add);
  if (error !== null) return error;
  return changeIngress(aws, "RevokeSecurityGroupIngress", group.id, remove);
}

export function hasRule(rules: Rule[], r: Rule): bool {
  const key = r.key;
  for (let i = 0; i < rules.length; i++) if (rules[i].key == key) return true;
  return false;
}

/** IpPermissions.N.* for Authorize/RevokeSecurityGroupIngress, one permission per rule; nothing to do for none. */
export function changeIngress(aws: Aws, action: string, groupId: string, rules: Rule[]): PluginError | null {
  if (rules.length == 0) return null;
  const answer = aws.callEc2(ingressRequest(aws, action, groupId, rules));
  if (answer.code != "InvalidPermission.Duplicate" && answer.code != "InvalidPermission.NotFound") return answer.error;
  // Someone else made (or revoked) one of the rules between our read and this call. EC2 then refuses the whole request,
  // so the rules are sent again one by one: each such answer then says its own rule is as wanted.
  if (rules.length == 1) return null;
  for (let i = 0; i < rules.length; i++) {
    const error = changeIngress(aws, action, groupId, [rules[i]]);
    if (error !== null) return error;
  }
  return null;
}

function ingressRequest(aws: Aws, action: string, groupId: string, rules: Rule[]): QueryRequest {
  const q = aws.ec2Request(action).add("GroupId", groupId);
  for (let i = 0; i < rules.length; i++) {
    const p = "IpPermissions." + (i + 1).toString();
    const r = rules[i];
    q.add(p + ".IpProtocol", r.protocol);
    if (r.protocol != "-1") q.add(p + ".FromPort", r.from.toString()).add(p + ".ToPort", r.to.toString());
    if (r.group != "") q.add(p + ".Groups.1.GroupId", r.group);
    else q.add(p + ".IpRanges.1.CidrIp", r.cidr);
    if (r.group == "" && r.description != "") q.add(p + ".IpRanges.1.Description", r.description);
  }
  return q;
}

/** Deletes the group; while a load balancer still holds it (AWS releases it some time after deletion): Retry. */
export function deleteGroup(aws: Aws, id: string): PluginError | null {
  const answer = aws.callEc2(aws.ec2Request("DeleteSecurityGroup").add("GroupId", id));
  if (answer.code == "InvalidGroup.NotFound") return null;
  if (answer.code == "DependencyViolation") return retryAfter(5, "security group " + id + " is still in use (its load balancer is being deleted)");
  return answer.error;
}

export class InstanceGroups {
  /** Instance ID -> the IDs of its security groups. */
  byInstance: Map<string, string[]> = new Map();
  error: PluginError | null = null;
}

export function instanceGroups(aws: Aws, ids: string[]): InstanceGroups {
  const out = new InstanceGroups();
  if (ids.length == 0) return out;
  const answer = aws.callEc2(aws.ec2Request("DescribeInstances").addList("InstanceId", ids));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const items = answer.root!.path("reservationSet/item/instancesSet/item");
  for (let i = 0; i < items.length; i++) {
    const groups = items[i].path("groupSet/item");
    const gids: string[] = [];
    for (let k = 0; k < groups.length; k++) if (groups[k].childText("groupId") != "") gids.push(groups[k].childText("groupId"));
    out.byInstance.set(items[i].childText("instanceId"), gids);
  }
  return out;
}
