// EC2 instances for nodes, as cloud-provider-aws finds and describes them: by the providerID's instance ID, else by
// the node name: an instance ID itself when it is a resource-based hostname (`i-0abc...`, with or without the
// domain), else the instance's private DNS name; terminated instances do not exist; addresses in upstream's order.
import {
  instanceNotFound,
  invalid,
  Node,
  NodeAddress,
  NodeAddressType,
  PluginError,
  XmlElement,
} from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";

export const PROVIDER_PREFIX = "aws://";
// Every state but terminated: what upstream filters a lookup by name with.
const LIVE_STATES = ["pending", "running", "shutting-down", "stopping", "stopped"];

export class Instance {
  id: string = "";
  type: string = "";
  zone: string = "";
  state: string = "";
  privateDnsName: string = "";
  publicDnsName: string = "";
  publicIp: string = "";
  privateIp: string = "";
  /** Private addresses of attached, in-use interfaces, by device index, each interface's primary address first. */
  privateIps: string[] = [];
  tags: Map<string, string> = new Map();

  get providerID(): string {
    return PROVIDER_PREFIX + "/" + this.zone + "/" + this.id;
  }

  /** InternalIP..., ExternalIP, InternalDNS, Hostname, ExternalDNS: cloud-provider-aws's order. */
  addresses(): NodeAddress[] {
    const out: NodeAddress[] = [];
    const ips = this.privateIps.length > 0 ? this.privateIps : this.privateIp != "" ? [this.privateIp] : [];
    for (let i = 0; i < ips.length; i++) out.push(address(NodeAddressType.InternalIP, ips[i]));
    if (this.publicIp != "") out.push(address(NodeAddressType.ExternalIP, this.publicIp));
    if (this.privateDnsName != "") {
      out.push(address(NodeAddressType.InternalDNS, this.privateDnsName));
      out.push(address(NodeAddressType.Hostname, this.privateDnsName));
    }
    if (this.publicDnsName != "") out.push(address(NodeAddressType.ExternalDNS, this.publicDnsName));
    return out;
  }
}

function address(kind: string, value: string): NodeAddress {
  const a = new NodeAddress();
  a.type = kind;
  a.address = value;
  return a;
}

export function parseInstance(el: XmlElement): Instance {
  const i = new Instance();
  i.id = el.childText("instanceId");
  i.type = el.childText("instanceType");
  i.zone = el.pathText("placement/availabilityZone");
  i.state = el.pathText("instanceState/name");
  i.privateDnsName = el.childText("privateDnsName");
  i.publicDnsName = el.childText("dnsName");
  i.publicIp = el.childText("ipAddress");
  i.privateIp = el.childText("privateIpAddress");
  const tags = el.path("tagSet/item");
  for (let k = 0; k < tags.length; k++) i.tags.set(tags[k].childText("key"), tags[k].childText("value"));
  const sorted = byDeviceIndex(el.path("networkInterfaceSet/item"));
  for (let k = 0; k < sorted.length; k++) {
    const nic = sorted[k];
    if (nic.childText("status") != "in-use") continue;
    const addrs = nic.path("privateIpAddressesSet/item");
    for (let pass = 0; pass < 2; pass++) {
      for (let a = 0; a < addrs.length; a++) {
        const primary = addrs[a].childText("primary") == "true";
        const ip = addrs[a].childText("privateIpAddress");
        if (ip != "" && (pass == 0) == primary) i.privateIps.push(ip);
      }
    }
  }
  return i;
}

/** Interfaces by attachment device index (stable; those without an attachment last). No closures in AS: by hand. */
function byDeviceIndex(nics: XmlElement[]): XmlElement[] {
  const out: XmlElement[] = [];
  for (let i = 0; i < nics.length; i++) {
    out.push(nics[i]);
    for (let at = out.length - 1; at > 0 && deviceIndex(out[at - 1]) > deviceIndex(out[at]); at--) {
      const moved = out[at - 1];
      out[at - 1] = out[at];
      out[at] = moved;
    }
  }
  return out;
}

function deviceIndex(nic: XmlElement): i32 {
  const text = nic.pathText("attachment/deviceIndex");
  return text == "" ? i32.MAX_VALUE : I32.parseInt(text);
}

export class InstancesResult {
  instances: Instance[] = [];
  error: PluginError | null = null;
}

/**
 * DescribeInstances by instance IDs or private DNS names. IDs go in the instance-id filter, not InstanceId.N, where
 * one unknown ID fails the whole call: an unknown instance is simply not in the answer.
 */
export function describeInstances(aws: Aws, ids: string[], privateDnsNames: string[]): InstancesResult {
  const out = new InstancesResult();
  const q = aws.ec2Request("DescribeInstances");
  if (ids.length > 0) q.addFilter("instance-id", ids);
  if (privateDnsNames.length > 0) q.addFilter("private-dns-name", privateDnsNames).addFilter("instance-state-name", LIVE_STATES);
  const answer = aws.callEc2(q);
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const items = answer.root!.path("reservationSet/item/instancesSet/item");
  for (let k = 0; k < items.length; k++) out.instances.push(parseInstance(items[k]));
  return out;
}

/** The instance ID of an aws:///<zone>/<id> or aws:////<id> providerID (or a bare ID); "" when it is none. */
export function instanceIdOf(providerID: string): string {
  let rest = providerID;
  if (rest.startsWith(PROVIDER_PREFIX)) {
    rest = rest.substring(PROVIDER_PREFIX.length);
    if (!rest.startsWith("/")) return ""; // aws://<host>/...: upstream refuses a host too
    const parts = rest.substring(1).split("/");
    if (parts.length != 2) return "";
    rest = parts[1];
  }
  if (!rest.startsWith("i-") || rest.length < 3) return "";
  for (let k = 2; k < rest.length; k++) {
    const c = rest.charCodeAt(k);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a))) return "";
  }
  return rest;
}

/**
 * The instance ID a node name is, as upstream reads resource-based hostnames: a name starting with `i-` is the ID up
 * to its first dot (`i-0abc` and `i-0abc.us-east-1.compute.internal` alike); "" for any other name.
 */
export function instanceIdOfNodeName(name: string): string {
  if (!name.startsWith("i-")) return "";
  const dot = name.indexOf(".");
  return dot < 0 ? name : name.substring(0, dot);
}

/** The live instances of a node name: by ID for a resource-based hostname, else by private DNS name. */
export function describeByNodeName(aws: Aws, name: string): InstancesResult {
  const id = instanceIdOfNodeName(name);
  return id != "" ? describeInstances(aws, [id], []) : describeInstances(aws, [], [name]);
}

export class Lookup {
  /** null when the node has no instance, or a terminated one. */
  instance: Instance | null = null;
  error: PluginError | null = null;
}

export function lookupNode(aws: Aws, node: Node): Lookup {
  const out = new Lookup();
  let found: InstancesResult;
  if (node.providerID != "") {
    const id = instanceIdOf(node.providerID);
    if (id == "") {
      out.error = badProviderID(node);
      return out;
    }
    found = describeInstances(aws, [id], []);
  } else {
    found = describeByNodeName(aws, node.name);
  }
  out.error = found.error;
  for (let k = 0; k < found.instances.length; k++) {
    if (found.instances[k].state != "terminated") out.instance = found.instances[k];
  }
  return out;
}

export function badProviderID(node: Node): PluginError {
  return invalid("node " + node.name + ": providerID " + node.providerID + " is not aws:///<zone>/<instance id>");
}

export function notFound(node: Node): PluginError {
  return instanceNotFound("no EC2 instance for node " + node.name + (node.providerID != "" ? " (" + node.providerID + ")" : ""));
}
