// Which nodes an NLB's target groups hold, and as what. Nodes that are EC2 instances are `instance` targets, as
// cloud-provider-aws registers them. A node of another cloud (a providerID that is not aws://, say vsphere://) is not an
// instance ELBv2 can register: when any target node is one, the Service's groups are `ip` groups holding every target
// node's InternalIP instead, so that one provider can serve the load balancers of a cluster another provider's
// machines make up.
import { Log, Node, PluginError, fields } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { Target } from "./elbv2";
import { describeInstances, Instance, instanceIdOf, instanceIdOfNodeName, PROVIDER_PREFIX } from "./instances";
import { LbOptions } from "./lb-options";
import { clusterTag, LEGACY_CLUSTER_TAG } from "./names";

export const TARGET_INSTANCE = "instance";
export const TARGET_IP = "ip";
/** ELBv2's zone for an IP target outside the target group's VPC: every zone of the load balancer sends to it. */
const ZONE_OUTSIDE_VPC = "all";

export class Targets {
  /** The target groups' TargetType: "instance" or "ip". */
  type: string = TARGET_INSTANCE;
  /** Sorted by ID; the port is each target group's NodePort. */
  items: Target[] = [];
  /** `ip` targets: the EC2 instances among the target nodes (their groups take the NLB's rules). */
  ec2Instances: string[] = [];
  error: PluginError | null = null;

  /** The EC2 instances the targets are or stand for. */
  instanceIds(): string[] {
    return this.type == TARGET_INSTANCE ? this.ids() : this.ec2Instances;
  }

  ids(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.items.length; i++) out.push(this.items[i].id);
    return out;
  }
}

/** The targets of the nodes that carry the target node labels; `ip` targets when any of them is not an EC2 node. */
export function chooseTargets(aws: Aws, nodes: Node[], opts: LbOptions, clusterID: string): Targets {
  const eligible: Node[] = [];
  let foreign = false;
  for (let i = 0; i < nodes.length; i++) {
    if (!hasLabels(nodes[i], opts.targetNodeLabels)) continue;
    eligible.push(nodes[i]);
    if (isForeign(nodes[i].providerID)) foreign = true;
  }
  const out = foreign ? ipTargets(eligible) : instanceTargets(aws, eligible, clusterID);
  out.items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return out;
}

/** A providerID another cloud provider set: neither empty (not initialized yet) nor an EC2 instance's. */
export function isForeign(providerID: string): bool {
  return providerID != "" && !providerID.startsWith(PROVIDER_PREFIX) && instanceIdOf(providerID) == "";
}

/**
 * Each node's first IPv4 InternalIP. EC2 nodes' addresses are in the VPC and ELBv2 finds their zone; another cloud's
 * are outside it and registered for every zone. A node that has not got its providerID yet, or has no IPv4
 * InternalIP, is left out until it has (the next node sync brings it in).
 */
function ipTargets(nodes: Node[]): Targets {
  const out = new Targets();
  out.type = TARGET_IP;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const ip = node.providerID == "" ? "" : internalIPv4(node);
    if (ip == "") {
      const reason = node.providerID == "" ? "no providerID" : "no IPv4 InternalIP";
      Log.info("node left out of ip targets", fields().set("node", node.name).set("reason", reason));
      continue;
    }
    if (hasTarget(out.items, ip)) continue;
    const t = new Target();
    t.id = ip;
    if (isForeign(node.providerID)) t.zone = ZONE_OUTSIDE_VPC;
    out.items.push(t);
    const instance = instanceIdOf(node.providerID);
    if (instance != "" && !out.ec2Instances.includes(instance)) out.ec2Instances.push(instance);
  }
  return out;
}

/**
 * The running instances behind `nodes` that carry the cluster tag: by providerID, else by the node name (an instance
 * ID, else a private DNS name). Stopped, terminated and unknown instances are left out (ELBv2 refuses to register a
 * terminated one), and so are instances of no cluster or another one, as upstream sees only its cluster's instances.
 */
function instanceTargets(aws: Aws, nodes: Node[], clusterID: string): Targets {
  const out = new Targets();
  const byId: string[] = [];
  const byName: string[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const id = instanceIdOf(nodes[i].providerID);
    const named = nodes[i].providerID == "" ? instanceIdOfNodeName(nodes[i].name) : "";
    if (id != "") byId.push(id);
    else if (named != "") byId.push(named);
    else if (nodes[i].providerID == "") byName.push(nodes[i].name);
  }
  for (let pass = 0; pass < 2; pass++) {
    const ids = pass == 0 ? byId : new Array<string>();
    const names = pass == 0 ? new Array<string>() : byName;
    if (ids.length + names.length == 0) continue;
    const found = describeInstances(aws, ids, names);
    if (found.error !== null) {
      out.error = found.error;
      return out;
    }
    for (let i = 0; i < found.instances.length; i++) {
      const inst = found.instances[i];
      if (inst.state != "running" || hasTarget(out.items, inst.id)) continue;
      if (!ofCluster(inst, clusterID)) {
        Log.info("instance left out of targets", fields().set("instance", inst.id).set("reason", "no " + clusterTag(clusterID) + " tag"));
        continue;
      }
      const t = new Target();
      t.id = inst.id;
      out.items.push(t);
    }
  }
  return out;
}

function internalIPv4(node: Node): string {
  for (let i = 0; i < node.addresses.length; i++) {
    const a = node.addresses[i];
    if (a.type == "InternalIP" && !a.address.includes(":")) return a.address;
  }
  return "";
}

function hasTarget(items: Target[], id: string): bool {
  for (let i = 0; i < items.length; i++) if (items[i].id == id) return true;
  return false;
}

/** The cluster tag (any value), or the legacy `KubernetesCluster` tag with the cluster ID, as upstream counts them. */
function ofCluster(inst: Instance, clusterID: string): bool {
  if (inst.tags.has(clusterTag(clusterID))) return true;
  return inst.tags.has(LEGACY_CLUSTER_TAG) && inst.tags.get(LEGACY_CLUSTER_TAG) == clusterID;
}

/** Every wanted label; an empty wanted value asks only for the key. */
function hasLabels(node: Node, want: Map<string, string>): bool {
  const keys = want.keys();
  for (let i = 0; i < keys.length; i++) {
    if (!node.labels.has(keys[i])) return false;
    const value = want.get(keys[i]);
    if (value != "" && node.labels.get(keys[i]) != value) return false;
  }
  return true;
}
