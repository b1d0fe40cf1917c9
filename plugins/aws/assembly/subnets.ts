// The subnets an NLB is placed in, chosen as cloud-provider-aws chooses them: subnets of the cluster's VPC (public
// ones only for an internet-facing NLB: their route table, else the VPC's main one, routes to an internet gateway),
// one per availability zone, those with the role tag of the scheme (kubernetes.io/role/elb,
// kubernetes.io/role/internal-elb) first, then those tagged for the cluster, then the lowest subnet ID.
import { internal, PluginError, XmlElement } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { clusterTag } from "./names";

export const ROLE_ELB = "kubernetes.io/role/elb";
export const ROLE_INTERNAL_ELB = "kubernetes.io/role/internal-elb";

export class Subnets {
  ids: string[] = [];
  error: PluginError | null = null;
}

class Candidate {
  constructor(
    public id: string,
    public zone: string,
    public rank: i32,
  ) {}
}

export function chooseSubnets(aws: Aws, vpc: string, clusterID: string, internalScheme: bool): Subnets {
  const out = new Subnets();
  const answer = aws.callEc2(aws.ec2Request("DescribeSubnets").addFilter("vpc-id", [vpc]));
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const role = internalScheme ? ROLE_INTERNAL_ELB : ROLE_ELB;
  let publicIds: Set<string> | null = null;
  if (!internalScheme) {
    const tables = aws.callEc2(aws.ec2Request("DescribeRouteTables").addFilter("vpc-id", [vpc]));
    if (!tables.ok) {
      out.error = tables.error;
      return out;
    }
    publicIds = publicSubnets(tables.root!.path("routeTableSet/item"), answer.root!.path("subnetSet/item"));
  }
  const best = new Map<string, Candidate>();
  const items = answer.root!.path("subnetSet/item");
  for (let i = 0; i < items.length; i++) {
    const c = new Candidate(items[i].childText("subnetId"), items[i].childText("availabilityZone"), rankOf(items[i], role, clusterID));
    if (c.rank == 0) continue;
    if (publicIds !== null && !publicIds.has(c.id)) continue;
    if (!best.has(c.zone) || better(c, best.get(c.zone))) best.set(c.zone, c);
  }
  const zones = best.keys().sort();
  for (let i = 0; i < zones.length; i++) out.ids.push(best.get(zones[i]).id);
  if (out.ids.length == 0) {
    out.error = internal(
      "no " + (internalScheme ? "" : "public ") + "subnet of " + vpc + " for a load balancer: tag subnets with " + role + " or " + clusterTag(clusterID),
    );
  }
  return out;
}

// 2: the scheme's role tag, 1: tagged for the cluster, 0: not a candidate.
function rankOf(subnet: XmlElement, role: string, clusterID: string): i32 {
  const tags = subnet.path("tagSet/item");
  let rank = 0;
  for (let i = 0; i < tags.length; i++) {
    const key = tags[i].childText("key");
    if (key == role) rank = 2;
    else if (key == clusterTag(clusterID) && rank == 0) rank = 1;
  }
  return rank;
}

function better(a: Candidate, b: Candidate): bool {
  return a.rank > b.rank || (a.rank == b.rank && a.id < b.id);
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
