// A Classic ELB's security groups as cloud-provider-aws chooses them (its buildELBSecurityGroupList): the groups the
// security-groups annotation names (bring your own: no group is made, and theirs are never changed or deleted), else
// [Global] ElbSecurityGroup (the same for every ELB, and as brought: never changed or deleted), else the ELB's own group
// k8s-elb-<name>, made here and opened to the source ranges on the Service ports; then the groups of
// extra-security-groups. The first group is the one the nodes' groups let in (upstream's sortELBSecurityGroupList).
import { internal, PluginError, Service } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { ClbOptions, readGroupLists } from "./clb-options";
import { Config } from "./config";
import { clusterTag } from "./names";
import { ensureGroup, groupById, Rule, setIngress } from "./security-groups";

export function securityGroupName(lbName: string): string {
  return "k8s-elb-" + lbName;
}

/**
 * The groups a Service names in its annotations, or the cloud config's ElbSecurityGroup in their stead: never deleted
 * with its ELB, even when tagged for the cluster.
 */
export class BroughtGroups {
  /** security-groups', else [ElbSecurityGroup]: the first is the one the nodes' groups let in. */
  own: string[] = [];
  extra: string[] = [];
  /** [Global] ElbSecurityGroup: never the ELB's own, whatever the annotations say (as upstream). */
  configured: string = "";

  has(id: string): bool {
    return this.own.includes(id) || this.extra.includes(id) || (id != "" && id == this.configured);
  }
}

/** Read on their own, so that a deletion finds them whatever else the Service's annotations hold. */
export function broughtGroups(service: Service, cfg: Config): BroughtGroups {
  const out = new BroughtGroups();
  readGroupLists(service.annotations, out.own, out.extra);
  out.configured = cfg.elbSecurityGroup;
  if (out.own.length == 0 && cfg.elbSecurityGroup != "") out.own.push(cfg.elbSecurityGroup);
  return out;
}

export class ElbGroups {
  /** In the order the ELB gets them. */
  ids: string[] = [];
  /** The group the nodes' groups let in: the first of ids. */
  ruleSource: string = "";
  error: PluginError | null = null;
}

/** The ELB's groups; its own group (when the Service brings none) made and its ingress set. */
export function ensureElbGroups(aws: Aws, cfg: Config, service: Service, name: string, opts: ClbOptions): ElbGroups {
  const out = new ElbGroups();
  if (opts.securityGroups.length > 0) {
    for (let i = 0; i < opts.securityGroups.length; i++) out.ids.push(opts.securityGroups[i]);
  } else if (cfg.elbSecurityGroup != "") {
    out.ids.push(cfg.elbSecurityGroup);
  } else {
    const own = ensureOwnGroup(aws, cfg, service, name, opts);
    if (own.error !== null) {
      out.error = own.error;
      return out;
    }
    out.ids.push(own.id);
  }
  for (let i = 0; i < opts.extraSecurityGroups.length; i++) {
    if (!out.ids.includes(opts.extraSecurityGroups[i])) out.ids.push(opts.extraSecurityGroups[i]);
  }
  out.ruleSource = out.ids[0];
  return out;
}

class Group {
  id: string = "";
  error: PluginError | null = null;
}

/** The ELB's own group with ingress for the Service ports and ICMP 3/4 (path MTU discovery) from the source ranges. */
function ensureOwnGroup(aws: Aws, cfg: Config, service: Service, name: string, opts: ClbOptions): Group {
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
