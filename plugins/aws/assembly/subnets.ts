// The subnets an NLB is placed in, chosen as cloud-provider-aws chooses them. With the `-subnets` annotation: exactly
// the subnets it names (IDs `subnet-...`, else Name tags in the VPC), each of which must exist. Without: the subnets of
// the cluster's VPC that are tagged for this cluster or for no cluster at all (no kubernetes.io/cluster/* tag), public
// ones only for an internet-facing NLB (their route table, else the VPC's main one, routes to an internet gateway),
// one per availability zone: the scheme's role tag (kubernetes.io/role/elb, kubernetes.io/role/internal-elb) breaks a
// tie first, then the cluster tag, then the lowest subnet ID; zones that are not regular availability zones (local,
// wavelength) are left out. When no subnet of the VPC is tagged that way, upstream falls back to its own instance's
// subnet; this plugin, running on no instance, takes [Global] SubnetID.
import { internal, invalid, PluginError, XmlElement } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { Config } from "./config";
import { CLUSTER_TAG_PREFIX, clusterTag, LEGACY_CLUSTER_TAG } from "./names";

export const ROLE_ELB = "kubernetes.io/role/elb";
export const ROLE_INTERNAL_ELB = "kubernetes.io/role/internal-elb";
export const SUBNETS_ANNOTATION = "service.beta.kubernetes.io/aws-load-balancer-subnets";
const REGULAR_ZONE = "availability-zone";

export class Subnets {
  ids: string[] = [];
  error: PluginError | null = null;
}

class Candidate {
  constructor(
    public id: string,
    public zone: string,
    public role: bool,
    public cluster: bool,
  ) {}
}

function failed(out: Subnets, error: PluginError | null): Subnets {
  out.error = error;
  return out;
}

/** The NLB's subnets: the annotation's (`named`, split at commas), else those discovered in the VPC. */
export function chooseSubnets(aws: Aws, cfg: Config, internalScheme: bool, named: string[]): Subnets {
  if (named.length > 0) return resolveNamed(aws, cfg.vpc, named);
  const out = new Subnets();
  const answer = aws.callEc2(aws.ec2Request("DescribeSubnets").addFilter("vpc-id", [cfg.vpc]));
  if (!answer.ok) return failed(out, answer.error);
  let items = clusterSubnets(answer.root!.path("subnetSet/item"), cfg.clusterID);
  if (items.length == 0 && cfg.subnetID != "") {
    const own = aws.callEc2(aws.ec2Request("DescribeSubnets").addFilter("subnet-id", [cfg.subnetID]));
    if (!own.ok) return failed(out, own.error);
    items = own.root!.path("subnetSet/item");
  }
  const tables = aws.callEc2(aws.ec2Request("DescribeRouteTables").addFilter("vpc-id", [cfg.vpc]));
  if (!tables.ok) return failed(out, tables.error);
  const publicIds = publicSubnets(tables.root!.path("routeTableSet/item"), items);
  const role = internalScheme ? ROLE_INTERNAL_ELB : ROLE_ELB;
  const best = new Map<string, Candidate>();
  for (let i = 0; i < items.length; i++) {
    const tags = tagsOf(items[i]);
    const c = new Candidate(items[i].childText("subnetId"), items[i].childText("availabilityZone"), tags.has(role), hasClusterTag(tags, cfg.clusterID));
    if (c.zone == "" || c.id == "") continue;
    if (!internalScheme && !publicIds.has(c.id)) continue;
    if (!best.has(c.zone) || better(c, best.get(c.zone))) best.set(c.zone, c);
  }
  const zones = best.keys().sort();
  const types = zoneTypes(aws, zones);
  if (types.error !== null) return failed(out, types.error);
  for (let i = 0; i < zones.length; i++) {
    if (types.types.has(zones[i]) && types.types.get(zones[i]) != REGULAR_ZONE) continue;
    out.ids.push(best.get(zones[i]).id);
  }
  if (out.ids.length == 0) {
    const what = internalScheme ? "subnet" : "public subnet";
    return failed(
      out,
      internal("no " + what + " of " + cfg.vpc + " for a load balancer: tag subnets " + clusterTag(cfg.clusterID) + " (or leave them untagged for any cluster) and " + role),
    );
  }
  return out;
}

/** Upstream's findSubnets: the VPC's subnets tagged for this cluster, or tagged for no cluster at all. */
function clusterSubnets(items: XmlElement[], clusterID: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (let i = 0; i < items.length; i++) {
    const tags = tagsOf(items[i]);
    if (hasClusterTag(tags, clusterID) || !hasAnyClusterTag(tags)) out.push(items[i]);
  }
  return out;
}

function tagsOf(item: XmlElement): Map<string, string> {
  const out = new Map<string, string>();
  const tags = item.path("tagSet/item");
  for (let i = 0; i < tags.length; i++) out.set(tags[i].childText("key"), tags[i].childText("value"));
  return out;
}

function hasClusterTag(tags: Map<string, string>, clusterID: string): bool {
  if (tags.has(clusterTag(clusterID))) return true;
  return tags.has(LEGACY_CLUSTER_TAG) && tags.get(LEGACY_CLUSTER_TAG) == clusterID;
}

function hasAnyClusterTag(tags: Map<string, string>): bool {
  const keys = tags.keys();
  for (let i = 0; i < keys.length; i++) if (keys[i].startsWith(CLUSTER_TAG_PREFIX)) return true;
  return false;
}

/** Upstream's tie-break within a zone: the role tag, then the cluster tag, then the lower subnet ID. */
function better(a: Candidate, b: Candidate): bool {
  if (a.role != b.role) return a.role;
  if (a.cluster != b.cluster) return a.cluster;
  return a.id < b.id;
}

/** The annotation's subnets: IDs as they are, other entries by Name tag in the VPC; each must be found once. */
function resolveNamed(aws: Aws, vpc: string, named: string[]): Subnets {
  const out = new Subnets();
  const ids: string[] = [];
  const names: string[] = [];
  for (let i = 0; i < named.length; i++) {
    if (named[i].startsWith("subnet-")) ids.push(named[i]);
    else names.push(named[i]);
  }
  if (ids.length > 0) {
    // By filter, not SubnetId.N: an unknown ID is then missing from the answer, and the count below names it.
    const answer = aws.callEc2(aws.ec2Request("DescribeSubnets").addFilter("subnet-id", ids));
    if (!answer.ok) return failed(out, answer.error);
    const items = answer.root!.path("subnetSet/item");
    for (let i = 0; i < items.length; i++) out.ids.push(items[i].childText("subnetId"));
  }
  if (names.length > 0) {
    const answer = aws.callEc2(aws.ec2Request("DescribeSubnets").addFilter("tag:Name", names).addFilter("vpc-id", [vpc]));
    if (!answer.ok) return failed(out, answer.error);
    const items = answer.root!.path("subnetSet/item");
    for (let i = 0; i < items.length; i++) out.ids.push(items[i].childText("subnetId"));
  }
  if (out.ids.length != named.length) {
    const found = out.ids.join(",");
    return failed(
      out,
      invalid("annotation " + SUBNETS_ANNOTATION + ': "' + named.join(",") + '" names ' + named.length.toString() + " subnets, " + out.ids.length.toString() + " found (" + found + ")"),
    );
  }
  return out;
}

class ZoneTypes {
  types: Map<string, string> = new Map();
  error: PluginError | null = null;
}

function zoneTypes(aws: Aws, zones: string[]): ZoneTypes {
  const out = new ZoneTypes();
  if (zones.length == 0) return out;
  const answer = aws.callEc2(aws.ec2Request("DescribeAvailabilityZones").addList("ZoneName", zones));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const items = answer.root!.path("availabilityZoneInfo/item");
  for (let i = 0; i < items.length; i++) {
    const type = items[i].childText("zoneType");
    if (type != "") out.types.set(items[i].childText("zoneName"), type);
  }
  return out;
}

/** The subnets whose route table (their own, else the main one) has a route to an internet gateway. */
function publicSubnets(tables: XmlElement[], subnets: XmlElement[]): Set<string> {
  const tableOf = new Map<string, XmlElement>();
  let main: XmlElement | null = null;
  for (let t = 0; t < tables.length; t++) {
    const associations = tables[t].path("associationSet/item");
    for (let a = 0; a < associations.length; a++) {
      const subnet = associations[a].childText("subnetId");
      if (subnet != "") tableOf.set(subnet, tables[t]);
      if (associations[a].childText("main") == "true") main = tables[t];
    }
  }
  const out = new Set<string>();
  for (let i = 0; i < subnets.length; i++) {
    const id = subnets[i].childText("subnetId");
    const table = tableOf.has(id) ? tableOf.get(id) : main;
    if (table !== null && routesToInternet(table)) out.add(id);
  }
  return out;
}

function routesToInternet(table: XmlElement): bool {
  const routes = table.path("routeSet/item");
  for (let r = 0; r < routes.length; r++) {
    if (routes[r].childText("gatewayId").startsWith("igw")) return true;
  }
  return false;
}
